/**
 * Notices (docs/notices.md; beyond the spec): what people are told about their training, and
 * when. Each person chooses which kinds they are mailed; an Admin sets the site's leads and delays
 * and may run the sweep now, with a given clock.
 */
import { defineGroup, route } from '../../shared/http/route.ts';
import { noticePreferencesSchema, noticeSettingsSchema, sweepResultSchema } from '../../shared/views/notice-views.ts';
import { preferencesBody, settingsBody, sweepBody } from './notices.schemas.ts';
import * as notices from './notices.service.ts';

const BEYOND_SPEC = { 'x-beyond-spec': true };
const KINDS =
  '`acknowledgement_requested`, `acknowledgement_due_soon`, `acknowledgement_overdue`, ' +
  "`acknowledgement_escalated` (as a team owner: a member's acknowledgement stayed overdue), `level_lapsing`, " +
  '`level_lapsed`, `retraining_assigned`';

export const noticesGroup = defineGroup({
  name: 'notices',
  access: { table: 'readwrite', conditionChecks: true, sendMail: true },
  routes: [
    route({
      method: 'GET',
      path: '/notices/preferences',
      auth: 'user',
      summary: 'Which notices the caller is mailed (every kind on unless turned off)',
      description: `One flag per kind: ${KINDS}. Events reach webhooks whatever the flags say.`,
      response: noticePreferencesSchema,
      extensions: BEYOND_SPEC,
      handler: ({ caller }) => notices.myPreferences(caller),
    }),
    route({
      method: 'PATCH',
      path: '/notices/preferences',
      auth: 'user',
      summary: 'Turn kinds of notice mail on or off for the caller',
      description: `Any of the flags (${KINDS}); the others keep their value. Answers every flag.`,
      body: preferencesBody,
      example: { acknowledgement_due_soon: false },
      response: noticePreferencesSchema,
      extensions: BEYOND_SPEC,
      handler: ({ caller, body }) => notices.setMyPreferences(caller, body),
    }),
    route({
      method: 'GET',
      path: '/notices/settings',
      auth: 'admin',
      summary: "The site's notice leads and delays, in days",
      description:
        '`due_soon_days` before an acknowledgement is due its reminder goes (default 3); `escalation_days` after ' +
        'it the team owners hear (3); `lapse_soon_days` before a level expires its holder is told (30); ' +
        '`retraining_due_days`: the due date of a course assigned when a level lapsed (14).',
      response: noticeSettingsSchema,
      extensions: BEYOND_SPEC,
      handler: () => notices.siteSettings(),
    }),
    route({
      method: 'PATCH',
      path: '/notices/settings',
      auth: 'admin',
      summary: "Change the site's notice leads and delays (null: back to the default)",
      description:
        'Days, 0-3650. They apply to acknowledgements and levels written from now on: the instants of notices ' +
        'already queued stay. Audited.',
      body: settingsBody,
      example: { due_soon_days: 2, escalation_days: 5 },
      response: noticeSettingsSchema,
      extensions: BEYOND_SPEC,
      handler: ({ caller, body }) => notices.setSiteSettings(caller, body),
    }),
    route({
      method: 'POST',
      path: '/notices/sweep',
      auth: 'admin',
      summary: 'Run the notice sweep now, with the clock at `as_of` (default: now)',
      description:
        'Sends every queued notice due at `as_of` (epoch seconds) once, as its event and as mail, and assigns ' +
        'retraining for lapsed levels; the same sweep runs on a schedule (every 5 minutes deployed, every ' +
        'minute under `npm start`). `budget` bounds the items handled (default 2000); `more` says some are left ' +
        'for the next run. A later clock never sends a notice twice; an earlier one sends only what is due then.',
      body: sweepBody,
      example: { as_of: 1765000000 },
      response: sweepResultSchema,
      extensions: BEYOND_SPEC,
      handler: ({ body }) => notices.sweepNow({ budget: 2000, ...body }),
    }),
  ],
});
