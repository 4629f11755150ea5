/**
 * SCORM attempts over HTTP (decision 271): the player names the attempt and each SCO's entry and
 * launch values; commits are kept on their version, checked against the spec's limits, refused
 * after Terminate and for someone else; the server judges the result and completes the stage.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, site, siteUrl } from '../support/api.ts';
import { assignedModule, entryOf, getAssignment } from '../support/courses.ts';
import { zip } from '../support/module-packages.ts';
import {
  scorm12MultiPackage,
  scorm2004FourthPackage,
  scorm2004ThirdPackage,
  sequenced2004Manifest,
} from '../support/scorm-packages.ts';

let admin: string;

beforeAll(async () => {
  admin = await loginAdmin();
});

const commit = (token: string, moduleid: number, attempt: number, body: Record<string, unknown>) =>
  api('POST', `/external_training_modules/${moduleid}/attempts/${attempt}/commit`, { token, body });

/**
 * A learner's commits on attempt 1 in order: `send` a commit at the attempt's current version;
 * `visit` a SCO: initialise it, then terminate it with `cmi` (and a navigation request).
 */
function learnerCommits(token: string, moduleid: number) {
  let version = 0;
  const send = async (sco: string, extra: Record<string, unknown>) => {
    const answer = await commit(token, moduleid, 1, { version, sco, ...extra });
    if (answer.status === 200) version = answer.body.version;
    return answer;
  };
  const visit = async (sco: string, cmi: Record<string, string>, nav?: string) => {
    expect((await send(sco, { initialize: true, cmi: {} })).status).toBe(200);
    return send(sco, { terminate: true, cmi, ...(nav ? { nav } : {}) });
  };
  return { visit };
}

describe('SCORM 1.2 attempts', () => {
  it('fills launch values, keeps a suspended attempt for a resume with total time, passes by mastery score', async () => {
    const { moduleid, learner, assignment } = await assignedModule(admin, await scorm12MultiPackage('Attempts 1.2'));
    const player = await api('GET', `/external_training_modules/${moduleid}/player`, { token: learner.token });
    expect(player.status).toBe(200);
    expect(player.body.attempt).toMatchObject({ attempt: 1, version: 0, current: null });
    const intro = player.body.attempt.scos.find((sco: { identifier: string }) => sco.identifier === 'intro');
    expect(intro.entry).toBe('ab-initio');
    expect(intro.cmi).toMatchObject({
      'cmi.core.entry': 'ab-initio',
      'cmi.launch_data': 'level=beginner',
      'cmi.student_data.mastery_score': '80',
      'cmi.student_data.max_time_allowed': '00:30:00',
      'cmi.student_data.time_limit_action': 'exit,message',
      'cmi.core.total_time': '0000:00:00',
    });

    // Initialize, then suspend with a place and data.
    let answer = await commit(learner.token, moduleid, 1, {
      version: 0,
      sco: 'intro',
      initialize: true,
      cmi: { 'cmi.core.lesson_status': 'incomplete' },
    });
    expect(answer.status).toBe(200);
    answer = await commit(learner.token, moduleid, 1, {
      version: 1,
      sco: 'intro',
      terminate: true,
      cmi: {
        'cmi.core.lesson_status': 'incomplete',
        'cmi.core.lesson_location': 'page-4',
        'cmi.suspend_data': 'p=4;answers=abc',
        'cmi.core.exit': 'suspend',
        'cmi.core.session_time': '0000:02:30.50',
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ version: 2, completion_status: 'incomplete', total_time: 150.5 });

    // A commit after LMSFinish is refused (1.2: 101), nothing changes.
    const late = await commit(learner.token, moduleid, 1, {
      version: 2,
      sco: 'intro',
      cmi: { 'cmi.core.lesson_status': 'passed' },
    });
    expect(late.status).toBe(422);
    expect(JSON.stringify(late.body)).toContain('terminated');

    // Second launch resumes.
    const again = await api('GET', `/external_training_modules/${moduleid}/player`, { token: learner.token });
    expect(again.body.attempt).toMatchObject({ attempt: 1, version: 2 });
    const resumed = again.body.attempt.scos.find((sco: { identifier: string }) => sco.identifier === 'intro');
    expect(resumed.entry).toBe('resume');
    expect(resumed.cmi).toMatchObject({
      'cmi.core.entry': 'resume',
      'cmi.core.lesson_location': 'page-4',
      'cmi.suspend_data': 'p=4;answers=abc',
      'cmi.core.total_time': '0000:02:30.50',
    });
    expect(resumed.cmi['cmi.core.exit']).toBeUndefined();

    // The raw score against the mastery score decides (the content says completed, 70 < 80: failed).
    answer = await commit(learner.token, moduleid, 1, {
      version: 2,
      sco: 'intro',
      initialize: true,
      cmi: { 'cmi.core.lesson_status': 'completed', 'cmi.core.score.raw': '70' },
    });
    expect(answer.body.scos.find((sco: { identifier: string }) => sco.identifier === 'intro')).toMatchObject({
      success_status: 'failed',
      satisfied: false,
    });
    answer = await commit(learner.token, moduleid, 1, {
      version: 3,
      sco: 'intro',
      cmi: { 'cmi.core.lesson_status': 'completed', 'cmi.core.score.raw': '85' },
    });
    expect(answer.body.scos[0]).toMatchObject({ identifier: 'intro', success_status: 'passed', satisfied: true });
    // One SCO of two is not the module.
    expect(answer.body.satisfied).toBe(false);
    expect(
      entryOf((await getAssignment(assignment.course_assignmentid)).body, learner.userid).stage_status.status,
    ).not.toBe('completed');
    answer = await commit(learner.token, moduleid, 1, {
      version: 4,
      sco: 'rules',
      initialize: true,
      cmi: { 'cmi.core.lesson_status': 'completed' },
    });
    expect(answer.body).toMatchObject({ satisfied: true, completion_status: 'completed', version: 5 });
    expect(entryOf((await getAssignment(assignment.course_assignmentid)).body, learner.userid).stage_status).toEqual({
      status: 'completed',
      reason: 'completed',
    });

    const mine = await api('GET', `/external_training_modules/${moduleid}/attempts`, { token: learner.token });
    expect(mine.body.attempts).toHaveLength(1);
    expect(mine.body.attempts[0]).toMatchObject({ attempt: 1, satisfied: true, userid: learner.userid });
    const all = await api('GET', `/external_training_modules/${moduleid}/attempts`, {
      token: admin,
      query: { all: 'true' },
    });
    expect(all.body.attempts.map((one: { userid: number }) => one.userid)).toEqual([learner.userid]);
    expect(
      (
        await api('GET', `/external_training_modules/${moduleid}/attempts`, {
          token: learner.token,
          query: { all: '1' },
        })
      ).status,
    ).toBe(403);
  });

  it('refuses oversized suspend_data, a stale version, malformed commits and learners not assigned', async () => {
    const { moduleid, learner } = await assignedModule(admin, await scorm12MultiPackage('Refusals'));
    const first = await commit(learner.token, moduleid, 1, { version: 0, sco: 'intro', initialize: true, cmi: {} });
    expect(first.status).toBe(200);

    const big = await commit(learner.token, moduleid, 1, {
      version: 1,
      sco: 'intro',
      cmi: { 'cmi.suspend_data': 'x'.repeat(4097) },
    });
    expect(big.status).toBe(422);
    expect(JSON.stringify(big.body)).toContain('scorm_405');

    // Two tabs: the second commit on version 1 loses, with the current attempt.
    expect(
      (await commit(learner.token, moduleid, 1, { version: 1, sco: 'intro', cmi: { 'cmi.suspend_data': 'a' } })).status,
    ).toBe(200);
    const stale = await commit(learner.token, moduleid, 1, {
      version: 1,
      sco: 'intro',
      cmi: { 'cmi.suspend_data': 'b' },
    });
    expect(stale.status).toBe(409);
    expect(JSON.stringify(stale.body)).toContain('"version":2');

    expect((await commit(learner.token, moduleid, 1, { version: 2, sco: 'nope', cmi: {} })).status).toBe(422);
    expect((await commit(learner.token, moduleid, 1, { version: 2, sco: 'intro', cmi: { x: 1 } })).status).toBe(422);
    expect(
      (await commit(learner.token, moduleid, 1, { version: 2, sco: 'intro', cmi: { 'bad key': 'v' } })).status,
    ).toBe(422);
    // An attempt that is not the open one.
    expect(
      (await commit(learner.token, moduleid, 7, { version: 0, sco: 'intro', initialize: true, cmi: {} })).status,
    ).toBe(422);
    // Someone else: not assigned, so nothing of theirs (or the learner's) is reached.
    const other = await createUser();
    expect((await commit(other.token, moduleid, 1, { version: 2, sco: 'intro', cmi: {} })).status).toBe(403);
    const kept = await api('GET', `/external_training_modules/${moduleid}/attempts`, { token: learner.token });
    expect(kept.body.attempts[0].version).toBe(2);
  });
});

describe('SCORM 2004 attempts', () => {
  it('judges success by the scaled passing score and completion by the threshold, whatever the content says', async () => {
    const { moduleid, learner, assignment } = await assignedModule(admin, await scorm2004ThirdPackage('Attempts 2004'));
    const player = await api('GET', `/external_training_modules/${moduleid}/player`, { token: learner.token });
    expect(player.body.attempt.scos[0].cmi).toMatchObject({
      'cmi.entry': 'ab-initio',
      'cmi.scaled_passing_score': '0.6',
      'cmi.completion_threshold': '0.75',
      'cmi.launch_data': 'mode=third',
      'cmi.max_time_allowed': 'PT1H',
      'cmi.time_limit_action': 'continue,message',
      'cmi.total_time': 'PT0H0M0S',
    });
    let answer = await commit(learner.token, moduleid, 1, {
      version: 0,
      sco: 'only',
      initialize: true,
      cmi: {
        'cmi.completion_status': 'completed',
        'cmi.progress_measure': '0.5',
        'cmi.success_status': 'passed',
        'cmi.score.scaled': '0.4',
      },
    });
    expect(answer.body).toMatchObject({ completion_status: 'incomplete', success_status: 'failed', satisfied: false });
    const big = await commit(learner.token, moduleid, 1, {
      version: 1,
      sco: 'only',
      cmi: { 'cmi.suspend_data': 'x'.repeat(64_001) },
    });
    expect(big.status).toBe(422);
    expect(JSON.stringify(big.body)).toContain('scorm_407');
    answer = await commit(learner.token, moduleid, 1, {
      version: 1,
      sco: 'only',
      terminate: true,
      cmi: {
        'cmi.progress_measure': '0.8',
        'cmi.score.scaled': '0.9',
        'cmi.suspend_data': 'y'.repeat(64_000),
        'cmi.session_time': 'PT1M5S',
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ completion_status: 'completed', success_status: 'passed', satisfied: true });
    expect(answer.body.total_time).toBe(65);
    expect(
      entryOf((await getAssignment(assignment.course_assignmentid)).body, learner.userid).stage_status.status,
    ).toBe('completed');
    const after = await commit(learner.token, moduleid, 1, { version: 2, sco: 'only', cmi: {} });
    expect(after.status).toBe(422);
    expect(JSON.stringify(after.body)).toContain('143');
    // Terminated without suspending: the next launch is a new attempt.
    const next = await api('GET', `/external_training_modules/${moduleid}/player`, { token: learner.token });
    expect(next.body.attempt).toMatchObject({ attempt: 2, version: 0 });
  });
});

describe('SCORM 2004 rollup (decision 325)', () => {
  it("the module's result is the activity tree root's, by the rollup rules the manifest declares", async () => {
    // The organization: satisfied when at least one lesson is (a declared rule); completion by the default rules.
    const { moduleid, learner, assignment } = await assignedModule(admin, await scorm2004FourthPackage('Rollup 2004'));
    const { visit } = learnerCommits(learner.token, moduleid);
    const first = await visit('lesson1', {
      'cmi.completion_status': 'completed',
      'cmi.progress_measure': '0.9',
      'cmi.score.scaled': '0.8',
    });
    // Lesson 2 never launched: completion unknown at the root, but the declared rule already satisfies it.
    expect(first.body).toMatchObject({ completion_status: 'incomplete', success_status: 'passed', satisfied: false });
    const second = await visit('lesson2', { 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed' });
    // Lesson 2 failed: every SCO satisfied would say no; the tree says passed (atLeastCount 1), and the
    // root's measure is the mean of the lessons' (0.8 and none: 0), as RB.1.1 weighs them.
    expect(second.body).toMatchObject({ completion_status: 'completed', success_status: 'passed', satisfied: true });
    expect(second.body.score_scaled).toBeCloseTo(0.4);
    expect(
      entryOf((await getAssignment(assignment.course_assignmentid)).body, learner.userid).stage_status.status,
    ).toBe('completed');
  });
});

describe('the runtime commit (decision 326)', () => {
  it('keeps a commit with the launch capability only: its module and attempt, from the content origin', async () => {
    const { moduleid, learner } = await assignedModule(admin, await scorm12MultiPackage('Runtime commit'));
    const page = await site('GET', `/ExternalTrainingModule/${moduleid}`, { token: learner.token });
    const attribute = /data-launch="([^"]*)"/.exec(page.text)![1]!;
    const launch = JSON.parse(
      attribute
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&amp;/g, '&'),
    );
    const { url, capability, version, sco } = launch.runtime_commit;
    const path = `/ExternalTrainingModule/${moduleid}/attempts/1/runtime_commit`;
    expect(url).toBe(`${siteUrl()}${path}`);
    const send = (authorization: string | undefined, headers: Record<string, string> = {}, at = path) =>
      site('POST', at, {
        body: { version, sco, initialize: true, cmi: {} },
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}), ...headers },
      });
    const changed = capability.slice(0, -1) + (capability.endsWith('A') ? 'B' : 'A');
    expect((await send(undefined)).status).toBe(401);
    expect((await send(`ScormCommit ${changed}`)).status).toBe(401);
    expect((await send(`api ${learner.token}`)).status).toBe(401);
    // Bound to its attempt: attempt 2 is not what it was issued for.
    expect((await send(`ScormCommit ${capability}`, {}, path.replace('/attempts/1/', '/attempts/2/'))).status).toBe(
      401,
    );
    expect((await send(`ScormCommit ${capability}`, { origin: 'https://elsewhere.example' })).status).toBe(403);
    const kept = await send(`ScormCommit ${capability}`, { origin: launch.content_origin });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ version: 1, userid: learner.userid, attempt: 1 });
  });
});

describe('multi-SCO attempts (the player page takes one SCO at a time)', () => {
  it('continues the attempt while a SCO of the unsatisfied module was never launched, then starts the next', async () => {
    const { moduleid, learner } = await assignedModule(admin, await scorm12MultiPackage('Attempts multi'));
    const { visit } = learnerCommits(learner.token, moduleid);
    const intro = await visit('intro', { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '90' });
    expect(intro.body).toMatchObject({ version: 2, satisfied: false });
    // Intro ended normally, rules was never launched: the next launch is still attempt 1.
    const player = await api('GET', `/external_training_modules/${moduleid}/player`, { token: learner.token });
    expect(player.body.attempt).toMatchObject({ attempt: 1, version: 2 });
    const rules = await visit('rules', { 'cmi.core.lesson_status': 'completed' });
    expect(rules.body).toMatchObject({ version: 4, satisfied: true });
    const next = await api('GET', `/external_training_modules/${moduleid}/player`, { token: learner.token });
    expect(next.body.attempt).toMatchObject({ attempt: 2, version: 0 });
  });
});

/**
 * root (flow, choice) > [unit (flow; left when completed, retried when not satisfied) > [lesson, quiz],
 * final (disabled until the unit is satisfied)]
 */
const condition = (name: string, operator = 'noOp') =>
  `<imsss:ruleConditions><imsss:ruleCondition condition="${name}" operator="${operator}"/></imsss:ruleConditions>`;

function sequencedBody(): string {
  return `<item identifier="unit"><title>Unit</title>${scoItem('lesson')}${scoItem('quiz')}
      <imsss:sequencing><imsss:controlMode flow="true"/><imsss:sequencingRules>
        <imsss:exitConditionRule>${condition('completed')}<imsss:ruleAction action="exit"/></imsss:exitConditionRule>
        <imsss:postConditionRule>${condition('satisfied', 'not')}<imsss:ruleAction action="retry"/>
        </imsss:postConditionRule>
      </imsss:sequencingRules>
      <imsss:objectives><imsss:primaryObjective objectiveID="unit.done">
        <imsss:mapInfo targetObjectiveID="g.unit" writeSatisfiedStatus="true"/></imsss:primaryObjective>
      </imsss:objectives>
      </imsss:sequencing></item>
    ${scoItem(
      'final',
      `<imsss:sequencing><imsss:sequencingRules><imsss:preConditionRule>${condition('satisfied', 'not').replace(
        'condition="satisfied"',
        'referencedObjective="unlock" condition="satisfied"',
      )}<imsss:ruleAction action="disabled"/></imsss:preConditionRule></imsss:sequencingRules>
      <imsss:objectives><imsss:primaryObjective objectiveID="final.done"/><imsss:objective objectiveID="unlock">
        <imsss:mapInfo targetObjectiveID="g.unit"/></imsss:objective></imsss:objectives></imsss:sequencing>`,
    )}`;
}

const scoItem = (id: string, sequencing = '') =>
  `<item identifier="${id}" identifierref="R-${id}"><title>${id}</title>${sequencing}</item>`;

/** A 4th edition package of `body`'s SCOs under an organization with choice and flow, each SCO a page. */
async function package2004(title: string, body: string): Promise<Buffer> {
  const ids = [...body.matchAll(/identifierref="R-([^"]+)"/g)].map((match) => match[1]!);
  return zip({
    'imsmanifest.xml': sequenced2004Manifest(title, body),
    ...Object.fromEntries(ids.map((id) => [`${id}.html`, `<!doctype html><title>${id}</title>`])),
  });
}

/** The SCO the player page launches (from its launch data), with the answer's status and text. */
async function launched(token: string, moduleid: number, query = '') {
  const answer = await site('GET', `/ExternalTrainingModule/${moduleid}${query}`, { token });
  return {
    status: answer.status,
    text: answer.text,
    sco: /&quot;sco&quot;:&quot;([^&]+)&quot;/.exec(answer.text)?.[1],
  };
}

describe('SCORM 2004 sequencing rules (decision 335)', () => {
  it('a failed quiz retries its unit on continue; a disabled SCO is refused until a global objective unlocks it', async () => {
    const { moduleid, learner } = await assignedModule(admin, await package2004('Sequenced', sequencedBody()));
    const { visit } = learnerCommits(learner.token, moduleid);
    const page = (query = '') => launched(learner.token, moduleid, query);
    // final's objective reads g.unit, unknown at first: the rule's "not satisfied" is unknown; the unit fails below.
    expect((await page()).sco).toBe('lesson');
    const lesson = await visit(
      'lesson',
      { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' },
      'continue',
    );
    expect(lesson.body.navigation).toEqual({ request: 'continue', deliver: 'quiz', end: false, message: null });
    const quiz = await visit(
      'quiz',
      { 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed' },
      'continue',
    );
    // The unit is completed (its exit rule leaves it) and not satisfied (its post-condition retries it).
    expect(quiz.body.navigation).toEqual({ request: 'continue', deliver: 'lesson', end: false, message: null });
    expect(quiz.body.scos).toEqual([]);
    expect(quiz.body).toMatchObject({ satisfied: false });
    // The page launches what the sequencer delivers; g.unit failed disables final.
    expect((await page()).sco).toBe('lesson');
    const refused = await page('?sco=final');
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('disabled by the module');
    // The retried unit passes: g.unit satisfied, final enabled, and continue leads there.
    await visit('lesson', { 'cmi.completion_status': 'completed' }, 'continue');
    const passed = await visit(
      'quiz',
      { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' },
      'continue',
    );
    expect(passed.body.navigation).toMatchObject({ deliver: 'final' });
    expect((await page('?sco=final')).sco).toBe('final');
  });
});

describe('SCORM 2004 limits, rollup considerations and termination (SN UP.1, RB.1.4.2, TB.2.3)', () => {
  it('a SCO out of time is refused, a skipped one does not hold the module back, a spent cluster delivers its own', async () => {
    // root (flow, choice) > [timed (1 minute), optional (skipped; counts in rollup only if not skipped),
    //   unit (flow, choice; one attempt) > [a, b]]
    const body = `${scoItem(
      'timed',
      `<adlcp:timeLimitAction>exit,message</adlcp:timeLimitAction><imsss:sequencing>
        <imsss:limitConditions attemptAbsoluteDurationLimit="PT1M"/></imsss:sequencing>`,
    )}${scoItem(
      'optional',
      `<imsss:sequencing><imsss:sequencingRules><imsss:preConditionRule>${condition('always')}
        <imsss:ruleAction action="skip"/></imsss:preConditionRule></imsss:sequencingRules>
        <adlseq:rollupConsiderations requiredForSatisfied="ifNotSkipped" requiredForNotSatisfied="ifNotSkipped"
          requiredForCompleted="ifNotSkipped" requiredForIncomplete="ifNotSkipped"/></imsss:sequencing>`,
    )}<item identifier="unit"><title>Unit</title>${scoItem('a')}${scoItem('b')}<imsss:sequencing>
        <imsss:controlMode choice="true" flow="true"/><imsss:limitConditions attemptLimit="1"/>
      </imsss:sequencing></item>`;
    const { moduleid, learner, assignment } = await assignedModule(admin, await package2004('Limits', body));
    const player = await api('GET', `/external_training_modules/${moduleid}/player`, { token: learner.token });
    expect(player.body.attempt.scos[0].cmi).toMatchObject({
      'cmi.max_time_allowed': 'PT1M',
      'cmi.time_limit_action': 'exit,message',
    });
    const { visit } = learnerCommits(learner.token, moduleid);
    const passed = { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' };
    // 65 s in timed: continue passes the skipped SCO into the unit; timed may not be launched again.
    const timed = await visit('timed', { ...passed, 'cmi.session_time': 'PT1M5S' }, 'continue');
    expect(timed.body.navigation).toEqual({ request: 'continue', deliver: 'a', end: false, message: null });
    const refused = await launched(learner.token, moduleid, '?sco=timed');
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('&quot;timed&quot; has reached its time limit');
    // The unit allows one attempt, the one the learner is in: a choice of b from a is delivered.
    const a = await visit('a', passed, '{target=b}choice');
    expect(a.body.navigation).toMatchObject({ deliver: 'b', message: null });
    expect((await launched(learner.token, moduleid, '?sco=b')).sco).toBe('b');
    // optional was skipped, never launched: it does not count, the module is satisfied.
    const b = await visit('b', passed);
    expect(b.body).toMatchObject({ completion_status: 'completed', success_status: 'passed', satisfied: true });
    expect(
      entryOf((await getAssignment(assignment.course_assignmentid)).body, learner.userid).stage_status.status,
    ).toBe('completed');
  });
});
