/** Work log: entries (one run-through of a guide), their timing and their step data (spec "Work log"). */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, reply, route } from '../../shared/http/route.ts';
import { stepUpRefusal } from '../../shared/http/step-up-refusal.ts';
import { boundedNumber, idParams } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';
import type * as WorkLogService from './work-log.service.ts';
import { stepDataBody, workLogListQuery } from './work-log.schemas.ts';
import { entrySchema } from '../../shared/views/work-log-views.ts';
import { syncRoutes } from './sync.routes.ts';
import type * as QualificationService from './qualification.service.ts';
import { workLogQualificationSchema } from '../../shared/views/competency-views.ts';

const workLog = lazyService<typeof WorkLogService>(() => import('./work-log.service.ts'));
const qualification = lazyService<typeof QualificationService>(() => import('./qualification.service.ts'));

/** The gate's refusal (docs/competency.md): documented on the routes that start or continue work. */
const qualificationRefusal = {
  '403': {
    description:
      'Not qualified: the guide is gated `block` and the operator holds less than the minimum level in one of ' +
      'its skills (or may not view the guide): ' +
      '`{message, skills: [{skillid, name, level_required, level_held, standing}]}`',
    schema: z.object({
      message: z.string(),
      skills: z.optional(
        z.array(
          z.object({
            skillid: z.int(),
            name: z.string(),
            level_required: z.int(),
            level_held: z.int(),
            standing: z.enum(['current', 'none', 'expired', 'outdated']),
          }),
        ),
      ),
    }),
  },
};

/** An id as a JSON number or a numeric string (the Zapier app sends its inputs as strings). */
const idValue = z.union([
  z.int().check(z.positive()),
  z.pipe(
    z.string().check(z.regex(/^\s*\d{1,15}\s*$/, 'must be an integer id')),
    z.transform((value: string) => Number.parseInt(value, 10)),
  ),
]);
/** Work order ids are strings; a number is read as its digits. */
const workorderValue = z.union([
  z.string(),
  z.pipe(
    boundedNumber(),
    z.transform((value: number) => String(value)),
  ),
]);

const entriesResponse = z.object({ results: z.array(entrySchema) });

const entryParams = idParams('entryid');
const conflictNote =
  "An operation the entry's state does not allow is 409 with `{message, ...the entry}`; nothing changes.";

function operation(name: WorkLogService.EntryOperation, summary: string, description: string) {
  return route({
    method: 'POST',
    path: `/work_log/{entryid}/${name}`,
    auth: 'user',
    personOnly: true,
    summary,
    description: `${description} Answers the entry. ${conflictNote}`,
    params: entryParams,
    response: entrySchema,
    handler: ({ caller, params }) => workLog.transition(caller, params.entryid, name),
  });
}

export const workLogGroup = defineGroup({
  name: 'work-log',
  access: { table: 'readwrite', conditionChecks: true, batchWrite: true },
  // POST /user/sync works through a journal for up to 25 s (SYNC_TIME_BUDGET_MS): API Gateway's limit.
  timeoutSeconds: 29,
  routes: [
    ...syncRoutes,
    route({
      method: 'GET',
      path: '/work_log',
      auth: 'user',
      summary: 'List work log entries, newest first, in `{"results": [...]}`',
      description:
        'Filters: `guideid`, `userid` (who started the entry), `workorderid` (exact), `client_guid` (the ' +
        'entry that user, else the caller, made under it), any combination; ' +
        '`limit` (1-200, default 20) and `offset`. Admins see every entry, editors of the guide named by ' +
        '`guideid` every entry of that guide; anyone else the entries they started (naming another userid is 403).',
      query: workLogListQuery,
      response: entriesResponse,
      handler: ({ caller, query }) => workLog.list(caller, query),
    }),
    route({
      method: 'POST',
      path: '/work_log',
      auth: 'user',
      personOnly: true,
      status: 201,
      summary: 'Start a work log entry on a guide for the caller',
      description:
        '`guideid` and `workorderid` (a string tying entries together, possibly across guides) in the JSON ' +
        'body or the query string. The caller must be able to view the guide. The entry starts `started` ' +
        'with empty `work_data` and `timingid` null. `client_guid` (a UUID the device made, unique per ' +
        'user: decision 224): sent again with the same request, the entry already made (200); with ' +
        'another, 409 with that entry. The gate on qualification (docs/competency.md): a guide ' +
        'gated `block` refuses an operator short of the minimum level in any of its skills (403 naming each ' +
        'skill, the level required and held); `warn` creates the entry flagged ' +
        '(GET /work_log/{entryid}/qualification).',
      query: z.object({ guideid: z.optional(idValue), workorderid: z.optional(z.string()) }),
      body: z.object({
        guideid: z.optional(idValue),
        workorderid: z.optional(workorderValue),
        client_guid: z.optional(clientGuidSchema),
      }),
      example: { guideid: 1, workorderid: 'WO-1234', client_guid: '0b9e4c1e-5d0a-4f4e-9a43-6c1d2b7e8f10' },
      response: entrySchema,
      errorResponses: qualificationRefusal,
      handler: async ({ caller, query, body }) => {
        const { created, record } = await workLog.create(caller, {
          guideid: body.guideid ?? query.guideid,
          workorderid: body.workorderid ?? query.workorderid,
          client_guid: body.client_guid,
        });
        return reply(created ? 201 : 200, record);
      },
    }),
    route({
      method: 'GET',
      path: '/work_log/{entryid}',
      auth: 'user',
      summary: 'One work log entry with its work_data',
      description:
        "The creator, the user working it, Admins and the guide's editors; a suspended entry also whoever " +
        'can view the guide.',
      params: entryParams,
      response: entrySchema,
      handler: ({ caller, params }) => workLog.get(caller, params.entryid),
    }),
    route({
      method: 'DELETE',
      path: '/work_log/{entryid}',
      auth: 'user',
      status: 204,
      summary: 'Delete a work log entry and all its data',
      description: 'The creator, the user working it, or an Admin.',
      params: entryParams,
      handler: async ({ caller, params }) => {
        await workLog.remove(caller, params.entryid);
      },
    }),
    operation(
      'finish',
      'Complete the entry: end time now',
      "Sets `endtime` to now and `guide_revisionid` to the guide's current revision; records the stage " +
        'completion of any course stage on the guide. From started, paused or suspended; the user working the entry.',
    ),
    operation(
      'cancel',
      'Cancel the entry: end time now, cancelled 1',
      'From started, paused or suspended; the user working the entry or an Admin.',
    ),
    operation(
      'pause',
      'Pause the timing: the active step becomes inactive, pause time counts up',
      'Only from started; the user working the entry.',
    ),
    operation(
      'resume',
      'Resume a paused entry on the step that was active',
      'Only from paused; the user working the entry.',
    ),
    operation(
      'suspend',
      'Suspend an entry in progress so that another user may assume it',
      'Only from started; the user working the entry. Suspended time is not working time.',
    ),
    operation(
      'assume',
      'Assume a suspended entry: the caller works it from now on',
      'Only from suspended; whoever can view the guide. The step that was active resumes.',
    ),
    route({
      method: 'PUT',
      path: '/work_log/{entryid}/stepData',
      auth: 'user',
      personOnly: true,
      summary: 'Save step form values of the entry (answers 200 without a body)',
      description:
        '`fields`: `{"<field_revisionid>": value}`; each value is checked against its field (Text Input: no ' +
        'line breaks; Numeric Input: a number; Checkbox: true/false or 1/0; Radios and Select: one of the ' +
        'options; Image, Video, Document: the id of an item of that type in your media library); null ' +
        'removes a value. Values are merged per field: others already saved stay. `lasttimingid`: the ' +
        'timingid this device last saw; when the entry has moved on, 409 with the entry and nothing is ' +
        'saved. `stepid` (Stepwise): make that step the active one (only while started). Started or paused ' +
        'entries, by the user working the entry; 422 names every bad value. A guide gated `block` refuses ' +
        'an operator who falls short now (403, as POST /work_log).',
      params: entryParams,
      body: stepDataBody,
      example: { fields: { '1': 'SN-0042' }, lasttimingid: null },
      errorResponses: qualificationRefusal,
      handler: async ({ caller, params, body }) => {
        await workLog.saveStepData(caller, params.entryid, body);
        // The real service answers exactly 200 with no body.
        return reply(200);
      },
    }),
    route({
      method: 'GET',
      path: '/work_log/{entryid}/qualification',
      auth: 'user',
      summary: "What the entry recorded about its operator's qualification at the start, and any override",
      description:
        'Per skill of the guide: the level required, the level that counted (`held`, with `standing`: current, ' +
        'none, expired, outdated), the level stored, its expiry and source, as they were when the entry started. ' +
        "`flagged`: started short of the minimum under `warn`, until a supervisor overrides it. The entry's " +
        "operators, the guide's trainers and Admins; 404 when the guide was in no skill.",
      params: entryParams,
      response: workLogQualificationSchema,
      handler: ({ caller, params }) => qualification.qualificationOf(caller, params.entryid),
    }),
    route({
      method: 'POST',
      path: '/work_log/{entryid}/qualification/override',
      auth: 'user',
      personOnly: true,
      summary: "A qualified supervisor's signed override of a flagged entry",
      description:
        'The supervisor signs with their `password` (e-signature, meaning `override`; 422 when wrong): an Admin or ' +
        'someone holding level 4 in every skill of the guide, never the operator (403). 409 when the entry is not ' +
        'flagged or already overridden. Audited. ' +
        'A signer who signs in through a company identity provider leaves `password` out: a fresh step-up ' +
        'there (GET /api/2.0/user/step_up) stands for it, once; their password is a 403 carrying `step_up_url`.',
      params: entryParams,
      body: z.object({
        password: z.optional(z.string().check(z.minLength(1))),
        comment: z.optional(z.string().check(z.maxLength(2000))),
      }),
      example: { password: 'your password', comment: 'Supervised on the line' },
      response: workLogQualificationSchema,
      errorResponses: stepUpRefusal,
      handler: ({ caller, auth, params, body, sourceIp }) =>
        qualification.overrideQualification(caller, auth, params.entryid, body, sourceIp),
    }),
    route({
      method: 'GET',
      path: '/work_log/{guideid}/suspended',
      auth: 'user',
      summary: 'Suspended entries of a guide, newest first, in `{"results": [...]}` (whoever can view the guide)',
      params: idParams('guideid'),
      query: z.object(pagination),
      response: entriesResponse,
      handler: ({ caller, params, query }) => workLog.suspended(caller, params.guideid, query),
    }),
  ],
});
