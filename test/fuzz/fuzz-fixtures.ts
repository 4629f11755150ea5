/**
 * The route fuzz test's own world: its own Admin, plain user, victim user (the target of every
 * `{userid}`), login target (every email/login in a body, so failed logins lock nobody else out),
 * team, pages, guide, course, quiz and work-log entry. Path parameters and ids in example bodies
 * are mapped onto these, so the fuzz never touches another test file's objects or the shared
 * Admin.
 */
import { api, createUser, uniqueSuffix, type TestUser } from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { importQuiz } from '../api/quiz-fixtures.ts';

export interface FuzzWorld {
  suffix: string;
  admin: TestUser;
  user: TestUser;
  victim: TestUser;
  loginTarget: TestUser;
  teamid: number;
  category: string;
  wiki: { namespace: string; title: string };
  guideid: number;
  stepid: number;
  course: number;
  quizid: number;
  entryid: number;
  commentid: number;
  /**
   * Values a route's preparation made for one request (test/fuzz/fuzz-preparations.ts): they
   * win over the shared objects below, for path parameters and ids in the body alike.
   */
  bound?: Record<string, string | number>;
}

async function created(response: Promise<{ status: number; body: any; text: string }>, what: string): Promise<any> {
  const result = await response;
  if (result.status !== 200 && result.status !== 201)
    throw new Error(`fuzz fixture ${what}: ${result.status} ${result.text}`);
  return result.body;
}

export async function buildWorld(): Promise<FuzzWorld> {
  const suffix = uniqueSuffix();
  const [admin, user, victim, loginTarget] = await Promise.all([
    createUser({ privileges: ['Admin'], username: `Fuzz Admin ${suffix}` }),
    createUser({ username: `Fuzz User ${suffix}` }),
    createUser({ username: `Fuzz Victim ${suffix}` }),
    createUser({ username: `Fuzz Login ${suffix}` }),
  ]);
  const team = await created(
    api('POST', '/teams', { token: admin.token, body: { name: `Fuzz team ${suffix}` } }),
    'team',
  );
  await created(api('PUT', `/teams/${team.teamid}/users/${victim.userid}`, { token: admin.token }), 'team member');
  const category = `Fuzz category ${suffix}`;
  await createWiki({ namespace: 'CATEGORY', title: category, contents: 'Fuzzed.' }, admin.token);
  const wiki = await createWiki({ title: `Fuzz page ${suffix}`, contents: 'See [[Fuzz page]].' }, admin.token);
  const guide = await created(
    api('POST', '/guides', {
      token: admin.token,
      body: { category, type: 'how-to', title: `Fuzz guide ${suffix}`, public: true },
    }),
    'guide',
  );
  const withStep = await created(
    api('POST', `/guides/${guide.guideid}/steps`, {
      token: admin.token,
      body: { orderby: 1, title: 'Step', lines: [{ text: 'Line', bullet: 'black', level: 0 }] },
    }),
    'step',
  );
  const course = await created(
    api('POST', '/courses', {
      token: admin.token,
      body: { title: `Fuzz course ${suffix}`, contents: 'Fuzzed.', stages: [] },
    }),
    'course',
  );
  const quiz = await importQuiz({}, admin.token);
  const entry = await created(
    api('POST', '/work_log', { token: user.token, body: { guideid: guide.guideid, workorderid: `WO-fuzz-${suffix}` } }),
    'work log entry',
  );
  const comment = await created(
    api('POST', `/comments/guide/${guide.guideid}`, { token: user.token, body: { text: 'Fuzz comment' } }),
    'comment',
  );
  return {
    suffix,
    admin,
    user,
    victim,
    loginTarget,
    teamid: team.teamid,
    category,
    wiki: { namespace: 'WIKI', title: wiki.title },
    guideid: guide.guideid,
    stepid: withStep.steps[0].stepid,
    course: course.wikiid,
    quizid: quiz.quizid,
    entryid: entry.entryid,
    commentid: comment.commentid,
  };
}

/** An id no test creates (far above any counter a run reaches). */
export const UNKNOWN_ID = 987_654_321;

/** The value of a path parameter or an id-like body key, from the world. */
export function worldValue(world: FuzzWorld, name: string): string | number | undefined {
  const key = name.toLowerCase();
  const bound = world.bound?.[name] ?? world.bound?.[key];
  if (bound !== undefined) return bound;
  const ids: Record<string, number> = {
    userid: world.victim.userid,
    assignee_userid: world.victim.userid,
    reviewer_userid: world.victim.userid,
    owner: world.victim.userid,
    add: world.victim.userid,
    remove: world.victim.userid,
    teamid: world.teamid,
    assignee_teamid: world.teamid,
    guideid: world.guideid,
    contextid: world.guideid,
    docid: world.guideid,
    stepid: world.stepid,
    wikiid: world.course,
    quizid: world.quizid,
    entryid: world.entryid,
    commentid: world.commentid,
  };
  if (key in ids) return ids[key];
  const strings: Record<string, string> = {
    namespace: world.wiki.namespace,
    title: world.wiki.title,
    context: 'guide',
    doctype: 'guide',
    type: 'images',
    search: 'Fuzz',
    email: world.victim.email,
    sso_userid: 'sample',
    employee_id: 'sample',
  };
  if (key in strings) return strings[key];
  return undefined;
}
