/**
 * The replay harness (issue 30, "Proof"): random journals of work done offline, delivered as a
 * flaky connection would (cut after any action, actions repeated, entries interleaved in any
 * order that keeps each entry's own order, the whole journal sent again), always ending with a
 * whole resend. Besides entries, a journal holds comments, quiz submissions, a signoff
 * request and an intent to acknowledge a release (recorded once, `pending`, never signed).
 * Invariants: every action takes effect exactly once (`applied` once over all deliveries,
 * `already_applied` after), no conflict where nothing interfered, no 5xx, the final state is the
 * journal's (one record per guid, one graded attempt per submission), and the
 * operator's audit chain verifies.
 * Short in CI (a few runs); longer with STEPWISE_PROPERTY_RUNS (test/support/property.ts).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser, uniqueSuffix } from '../support/api.ts';
import { propertyRuns } from '../support/property.ts';
import { assign, createCourse, createTeam, releaseGuide, stageGuide } from '../support/courses.ts';
import { addStep, createGuide, ownSteps, publish } from './guide-fixtures.ts';
import { ALL_RIGHT, HALF_RIGHT, importQuiz } from './quiz-fixtures.ts';

let writer: TestUser;
let operator: TestUser;
let guideid: number;
let fields: string[];
let quizid: number;
let stage_assessmentid: number;
let releaseid: number;

beforeAll(async () => {
  [writer, operator] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
  const guide = await addStep(writer.token, (await createGuide(writer.token)).guideid);
  guideid = guide.guideid;
  expect((await api('PUT', `/guides/${guideid}/users/${operator.userid}`, { token: writer.token })).status).toBe(200);
  const form = await api('POST', `/step_forms/${ownSteps(guide)[0].stepid}`, {
    token: writer.token,
    body: {
      fields: ['Serial', 'Batch', 'Operator note'].map((label) => ({ field_type: 'Text Input', label })),
    },
  });
  fields = form.body.fields.map((field: { field_revisionid: number }) => String(field.field_revisionid));
  await publish(writer.token, guide);
  quizid = (await importQuiz()).quizid;
  // The operator is a trainee of a course whose stage a team signs: the journal may request it.
  const team = await createTeam({ owner: writer.userid });
  const course = await createCourse({
    stages: [{ doctype: 'guide', docid: (await stageGuide()).guideid, assessment: { teamid: team.teamid } }],
  });
  await assign({ wikiid: course.wikiid, userid: operator.userid });
  stage_assessmentid = course.stages[0].stage_assessmentid;
  // A release the operator is asked to acknowledge: the journal may record intents to.
  const reading = await stageGuide();
  await assign({
    wikiid: (await createCourse({ stages: [{ doctype: 'guide', docid: reading.guideid }] })).wikiid,
    userid: operator.userid,
  });
  releaseid = (await releaseGuide(reading.guideid, 'major')).releaseid;
});

interface EntryPlan {
  fields: number[];
  end: 'none' | 'finish' | 'cancel';
}
type Delivery = { kind: 'cut'; at: number } | { kind: 'duplicates'; picks: number[] } | { kind: 'whole' };

const entryPlan = fc.record({
  fields: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }),
  end: fc.constantFrom<'none' | 'finish' | 'cancel'>('none', 'finish', 'cancel'),
});
interface RecordsPlan {
  comments: number;
  quiz: boolean[];
  signoff: boolean;
  ackIntent: boolean;
}
/** Records of other areas the journal makes: each one action, interleaved with the entries'. */
const recordsPlan = fc.record({
  comments: fc.nat({ max: 2 }),
  /** Quiz submissions, each all right or half right (each one graded attempt). */
  quiz: fc.array(fc.boolean(), { maxLength: 2 }),
  signoff: fc.boolean(),
  ackIntent: fc.boolean(),
});
const scenario = fc.record({
  entries: fc.array(entryPlan, { minLength: 1, maxLength: 3 }),
  records: recordsPlan,
  /** Which entry each slot of the interleaving takes its next action from (taken modulo). */
  interleave: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
  deliveries: fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat({ max: 11 }) }),
      fc.record({ kind: fc.constant('duplicates' as const), picks: fc.array(fc.nat({ max: 11 }), { maxLength: 4 }) }),
      fc.constant({ kind: 'whole' as const }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
});

interface Action {
  client_guid: string;
  type: string;
  device_time: number;
  entry?: string;
  data?: Record<string, unknown>;
}

/** The journal: each entry's actions in its own order, entries interleaved as `interleave` says. */
function journalOf(
  entries: EntryPlan[],
  records: RecordsPlan,
  interleave: number[],
  tag: string,
): { actions: Action[]; starts: string[] } {
  const now = Math.floor(Date.now() / 1000);
  const single = (type: string, data: Record<string, unknown>): Action[] => [
    { client_guid: randomUUID(), type, device_time: now, data },
  ];
  const others: Action[][] = [
    ...Array.from({ length: records.comments }, (_, index) =>
      single('comment.create', { context: 'guide', contextid: guideid, text: `Note ${tag}.${index}` }),
    ),
    ...records.quiz.map((right) => single('quiz.submit', { quizid, response_json: right ? ALL_RIGHT : HALF_RIGHT })),
    ...(records.signoff ? [single('signoff.request', { stage_assessmentid, comments: `Ready ${tag}` })] : []),
    ...(records.ackIntent ? [single('acknowledgement.sign_intent', { releaseid })] : []),
  ];
  const queues = entries.map((plan, index) => {
    const start = randomUUID();
    const own: Action[] = [
      {
        client_guid: start,
        type: 'work_log.start',
        device_time: now,
        data: { guideid, workorderid: `WO-${tag}-${index}` },
      },
      ...plan.fields.map((field) => ({
        client_guid: randomUUID(),
        type: 'work_log.step_data',
        device_time: now,
        entry: start,
        data: { fields: { [fields[field]]: `v${field}` } },
      })),
    ];
    if (plan.end !== 'none')
      own.push({ client_guid: randomUUID(), type: `work_log.${plan.end}`, device_time: now, entry: start });
    return own;
  });
  queues.push(...others);
  const starts = queues.map((queue) => queue[0].client_guid);
  const actions: Action[] = [];
  let slot = 0;
  while (queues.some((queue) => queue.length > 0)) {
    const open = queues.filter((queue) => queue.length > 0);
    actions.push(open[(interleave[slot++ % interleave.length] ?? 0) % open.length].shift()!);
  }
  return { actions, starts };
}

function deliveryOf(actions: Action[], delivery: Delivery): Action[] {
  if (delivery.kind === 'whole') return actions;
  if (delivery.kind === 'cut') return actions.slice(0, delivery.at % (actions.length + 1));
  // Each pick repeats that action right after itself, as a retrying device would.
  const out: Action[] = [];
  actions.forEach((action, index) => {
    out.push(action);
    for (const pick of delivery.picks) if (pick % actions.length === index) out.push(action);
  });
  return out;
}

/** One comment, one graded submission, one signoff request per guid; the request is then withdrawn. */
async function expectRecordsMadeOnce(actions: Action[], sessionsBefore: number) {
  const token = operator.token;
  for (const action of actions) {
    const query = { client_guid: action.client_guid };
    if (action.type === 'comment.create') {
      const found = await api('GET', '/comments', { token, query });
      expect(found.body.map((comment: { text_raw: string }) => comment.text_raw)).toEqual([action.data?.text]);
    } else if (action.type === 'quiz.submit') {
      const found = await api('GET', '/quizzes/sessions', { token, query });
      expect(found.body.quizSessions).toHaveLength(1);
      expect(found.body.quizSessions[0]).toMatchObject({ quizid, submitted: 1 });
    } else if (action.type === 'signoff.request') {
      const found = (await api('GET', '/stage-sign-offs/requests', { token, query })).body;
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ state: 'requested', comments: action.data?.comments });
    } else if (action.type === 'acknowledgement.sign_intent') {
      // Only an intent: the acknowledgement is not signed by any delivery.
      const read = await api('GET', `/acknowledgements/${releaseid}`, { token });
      expect(read.body.acknowledgement.state).toBe('pending');
    }
  }
  // Each submission counted one attempt: the operator's sessions of the quiz are exactly these.
  const submitted = actions.filter((action) => action.type === 'quiz.submit').length;
  expect(await quizSessionCount()).toBe(sessionsBefore + submitted);
}

/** Withdraws the requests of earlier runs (a failed run leaves its own), so each run may request the stage. */
async function withdrawRequests() {
  const token = operator.token;
  for (const client_guid of requested.splice(0)) {
    for (const request of (await api('GET', '/stage-sign-offs/requests', { token, query: { client_guid } })).body)
      if (request.state === 'requested')
        expect((await api('DELETE', `/stage-sign-offs/requests/${request.signoff_requestid}`, { token })).status).toBe(
          204,
        );
  }
}
const requested: string[] = [];

async function quizSessionCount(): Promise<number> {
  const answer = await api('GET', '/quizzes/sessions', { token: operator.token, query: { limit: 200 } });
  return answer.body.quizSessions.filter((session: { quizid: number }) => session.quizid === quizid).length;
}

describe('offline journals replayed (property)', () => {
  it('take effect exactly once however they are cut, repeated and resent', { timeout: 300_000 }, async () => {
    const admin = await loginAdmin();
    await fc.assert(
      fc.asyncProperty(scenario, async ({ entries, records, interleave, deliveries }) => {
        const tag = uniqueSuffix();
        const { actions, starts } = journalOf(entries, records, interleave, tag);
        await withdrawRequests();
        requested.push(...actions.filter((action) => action.type === 'signoff.request').map((a) => a.client_guid));
        const sessionsBefore = await quizSessionCount();
        const applied = new Map<string, number>();
        for (const delivery of [...deliveries, { kind: 'whole' as const }]) {
          const sent = deliveryOf(actions, delivery);
          if (sent.length === 0) continue;
          const answer = await api('POST', '/user/sync', { token: operator.token, body: { actions: sent } });
          expect(answer.status).toBe(200);
          for (const result of answer.body.results) {
            expect(result.http_status).toBeLessThan(500);
            // Nothing else touched these entries: no conflict, nothing skipped (an intent: pending).
            const done = result.type.endsWith('sign_intent') ? ['pending'] : ['applied', 'already_applied'];
            expect(done).toContain(result.status);
            // An intent recorded now is 202; one found recorded, 200.
            if (result.status === 'applied' || result.http_status === 202)
              applied.set(result.client_guid, (applied.get(result.client_guid) ?? 0) + 1);
          }
        }
        // Exactly once: every action applied once over all deliveries.
        expect(applied.size).toBe(actions.length);
        expect([...applied.values()].every((count) => count === 1)).toBe(true);
        // The final state is the journal's.
        for (const [index, plan] of entries.entries()) {
          const found = await api('GET', '/work_log', { token: operator.token, query: { client_guid: starts[index] } });
          expect(found.body.results).toHaveLength(1);
          const entry = found.body.results[0];
          const byWorkorder = await api('GET', '/work_log', {
            token: operator.token,
            query: { workorderid: `WO-${tag}-${index}` },
          });
          expect(byWorkorder.body.results).toHaveLength(1);
          const expected = { none: 'started', finish: 'complete', cancel: 'cancelled' }[plan.end];
          expect(entry.status).toBe(expected);
          const values = entry.work_data.map((value: { value: string }) => value.value).sort();
          expect(values).toEqual(plan.fields.map((field) => `v${field}`).sort());
        }
        await expectRecordsMadeOnce(actions, sessionsBefore);
        const verified = await api('GET', `/audit/users/${operator.userid}/verify`, { token: admin });
        if (verified.status === 200) expect(verified.body.valid).toBe(true);
        else expect(verified.status).toBe(404);
      }),
      { numRuns: propertyRuns(4) },
    );
  });
});
