/**
 * A site populated with every kind of entity API 2.0 creates, and the GETs that compare two sites
 * (the round trip of test/api/site-transfer.test.ts and the migration proof of
 * test/api/site-migration.test.ts).
 */
import sharp from 'sharp';
import { ALL_RIGHT, safetyQuiz } from '../api/quiz-fixtures.ts';
import { apiAt, type RequestOptions } from './api.ts';
import type { Site } from './site-transfer.ts';

export interface Person {
  userid: number;
  token: string;
  email: string;
  password: string;
}

/** What a populated site holds, for the comparisons. */
function emptyPopulation() {
  return {
    people: [] as Person[],
    teamid: 0,
    category: '',
    guideid: 0,
    stepids: [] as number[],
    imageid: 0,
    releaseid: 0,
    wiki: '',
    commentid: 0,
    courseid: 0,
    assignmentid: 0,
    quizid: 0,
    entryid: 0,
    approvalRequestid: 0,
    scheduleid: 0,
    skillid: 0,
    competencyGuideid: 0,
    acknowledgedReleaseid: 0,
    gatedEntryid: 0,
    /** A team removed by a SCIM Group DELETE: gone from /teams, still named by the guide's grant. */
    removedTeamid: 0,
    /** An account deleted through SCIM (disabled, gone for SCIM: decision 242). */
    deprovisionedUserid: 0,
    /** Content written by a site API token, revoked since (decision 244): shown as the token. */
    tokenGuideid: 0,
    tokenCommentid: 0,
  };
}
export type Population = ReturnType<typeof emptyPopulation>;

async function ok(response: Promise<{ status: number; body: any; text: string }>, what: string) {
  const answer = await response;
  if (answer.status >= 300) throw new Error(`${what}: ${answer.status} ${answer.text}`);
  return answer.body;
}

async function person(site: Site, privileges?: string[]): Promise<Person> {
  const admin = await site.admin();
  const suffix = Math.random().toString(36).slice(2, 10);
  const email = `p.${suffix}@example.com`;
  const password = `pw-${suffix}-Secret`;
  const created = await ok(
    site.call('POST', '/users', {
      token: admin,
      body: { email, username: `P ${suffix}`, password, unique_username: `p_${suffix}` },
    }),
    'user',
  );
  if (privileges)
    await ok(site.call('PATCH', `/users/${created.userid}`, { token: admin, body: { privileges } }), 'privileges');
  const token = (await ok(site.call('POST', '/user/token', { body: { email, password } }), 'login')).authToken;
  return { userid: created.userid, token, email, password };
}

/** Every kind of entity a test can reasonably create through the API, on `site`. */
export async function populateSite(site: Site): Promise<Population> {
  const made = emptyPopulation();
  const admin = await site.admin();
  const call = site.call;
  const [author, trainee, approver] = await Promise.all([person(site, ['Author']), person(site), person(site)]);
  made.people = [author, trainee, approver];

  // Uploaded first: the team, wikis and guide are made while the image is processed.
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#cc6633' } })
    .png()
    .toBuffer();
  const upload = await ok(
    call('POST', '/user/media/uploads', {
      token: author.token,
      query: { file: 'nozzle.png' },
      rawBody: png,
      headers: { 'content-type': 'application/octet-stream' },
    }),
    'upload',
  );
  made.imageid = upload.id;

  const team = await ok(
    call('POST', '/teams', { token: admin, body: { name: 'Line 3', description: 'Night shift' } }),
    'team',
  );
  made.teamid = team.teamid;
  await ok(
    call('PATCH', `/teams/${team.teamid}/users`, { token: admin, body: { add: [trainee.userid, approver.userid] } }),
    'members',
  );

  made.category = 'Printers';
  const category = await ok(
    call('POST', '/wikis', {
      token: admin,
      body: { namespace: 'CATEGORY', title: made.category, contents: 'Desktop printers.' },
    }),
    'category',
  );
  made.wiki = 'Torque table';
  await ok(
    call('POST', '/wikis', {
      token: author.token,
      body: { namespace: 'WIKI', title: made.wiki, contents: 'M4: 2 Nm' },
    }),
    'wiki',
  );

  let guide = await newGuide(site, author, made.category, 'Replace the nozzle');
  made.guideid = guide.guideid;
  // Ready before a step shows it (steps take ready media only) and before anything is exported: an
  // item exported mid-processing is processed again by the target after its import, and its `/igi/`
  // original is missing there until that ends. Under load processing takes seconds, so the wait is
  // long and ends in an error, never silently.
  let ready = false;
  for (const deadline = Date.now() + 60_000; !ready && Date.now() < deadline; ) {
    const item = await call('GET', `/user/media/GuideImage/${upload.id}`, { token: author.token });
    ready = item.body.status === 'ready';
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!ready) throw new Error(`populateSite: image ${upload.id} was not processed within 60 s`);
  for (const [index, text] of ['Unplug the printer.', 'Wait until cool.'].entries()) {
    guide = await ok(
      call('POST', `/guides/${guide.guideid}/steps`, {
        token: author.token,
        body: {
          orderby: index + 1,
          lines: [{ text, bullet: 'black', level: 0 }],
          ...(index === 0 ? { media: { type: 'image', data: [made.imageid] } } : {}),
        },
      }),
      'step',
    );
  }
  made.stepids = guide.steps.map((step: { stepid: number }) => step.stepid);
  await ok(
    call('PUT', `/guides/${guide.guideid}/public`, {
      token: author.token,
      query: { revisionid: guide.revisionid },
      body: {},
    }),
    'publish',
  );
  made.releaseid = (
    await ok(
      call('POST', '/guides/releases', {
        token: author.token,
        body: { guideid: guide.guideid, release_type: 'major', notes: 'First' },
      }),
      'release',
    )
  ).releaseid;
  await ok(call('PUT', `/guides/${guide.guideid}/tag`, { token: author.token, body: { tag: 'nozzle' } }), 'tag');
  await ok(call('PUT', `/user/favorites/guides/${guide.guideid}`, { token: trainee.token }), 'favorite');
  await ok(call('PUT', `/guides/${guide.guideid}/users/${trainee.userid}`, { token: author.token }), 'grant');
  made.commentid = (
    await ok(
      call('POST', `/comments/guide/${guide.guideid}`, {
        token: trainee.token,
        body: { text: 'Check the torque twice.' },
      }),
      'comment',
    )
  ).commentid;

  const form = await ok(
    call('POST', `/step_forms/${made.stepids[0]}`, {
      token: author.token,
      body: { fields: [{ field_type: 'Text Input', label: 'Serial' }] },
    }),
    'form',
  );
  const fieldRevisionid = form.fields[0].field_revisionid;
  const entry = await ok(
    call('POST', '/work_log', { token: trainee.token, body: { guideid: guide.guideid, workorderid: 'WO-7' } }),
    'work log',
  );
  made.entryid = entry.entryid;
  await ok(
    call('PUT', `/work_log/${entry.entryid}/stepData`, {
      token: trainee.token,
      body: { stepid: made.stepids[0], fields: { [fieldRevisionid]: 'SN-42' } },
    }),
    'step data',
  );
  await ok(call('POST', `/work_log/${entry.entryid}/finish`, { token: trainee.token }), 'finish');

  const course = await ok(
    call('POST', '/courses', {
      token: admin,
      body: {
        title: 'Nozzle care',
        contents: 'Keep printers running.',
        stages: [{ doctype: 'guide', docid: guide.guideid, strictness: 'major' }],
      },
    }),
    'course',
  );
  made.courseid = course.wikiid;
  made.assignmentid = (
    await ok(
      call('POST', '/course_assignments', { token: admin, body: { wikiid: course.wikiid, userid: trainee.userid } }),
      'assignment',
    )
  ).course_assignmentid;

  const quiz = await ok(
    call('POST', '/quizzes/import', { token: admin, body: { definition: safetyQuiz('Lockout') } }),
    'quiz',
  );
  made.quizid = quiz.quizid;
  await ok(
    call('POST', '/quizzes/sessions/submit', {
      token: trainee.token,
      body: { quizid: quiz.quizid, response_json: ALL_RIGHT },
    }),
    'quiz session',
  );

  // Before the category is governed by an approval process: its releases are then held for approval.
  await populateCompetency(site, made, author, trainee);
  const process = await ok(
    call('POST', '/approvals/process', {
      token: admin,
      body: { name: 'Quality', stages: [{ teamid: team.teamid, quorum: 1 }] },
    }),
    'process',
  );
  await ok(call('PUT', `/approvals/${category.wikiid}/${process.approval_processid}`, { token: admin }), 'govern');
  const current = await ok(call('GET', `/guides/${guide.guideid}`, { token: author.token }), 'guide read');
  const request = await ok(
    call('POST', '/approvals/requests', {
      token: author.token,
      query: { revisionid: current.revisionid },
      body: { doctype: 'guide', docid: guide.guideid, notes: 'New torque values' },
    }),
    'approval request',
  );
  made.approvalRequestid = request.approval_requestid;
  await ok(
    call('POST', `/approvals/request/sign/${request.approval_requestid}`, {
      token: approver.token,
      body: { meaning: 'approve', reason: 'Checked', password: approver.password },
    }),
    'sign',
  );

  await ok(call('PUT', `/guides/${guide.guideid}/completed`, { token: trainee.token }), 'completion');
  const schedule = await ok(
    call('POST', '/periodic_review', {
      token: admin,
      body: { name: 'Annual review', frequency_quantity: 12, frequency_unit: 'month', reviewer_userid: author.userid },
    }),
    'review schedule',
  );
  made.scheduleid = schedule.prsid;
  await ok(
    call('POST', '/periodic_review/documents', {
      token: admin,
      body: { prsid: schedule.prsid, documents: [{ doctype: 'guide', docid: guide.guideid }] },
    }),
    'reviewed document',
  );
  await populateIdentity(site, made);
  return made;
}

/**
 * What the identity provider and integrations leave (issue 28): a team removed and an account
 * deleted through SCIM, and a guide and a comment written by a site API token revoked since.
 */
async function populateIdentity(site: Site, made: Population) {
  const admin = await site.admin();
  const call = site.call;
  const root = (path: string, options: RequestOptions) =>
    apiAt(site.url.replace(/\/api\/2\.0$/, ''), 'DELETE', path, options);
  const mint = async (name: string, scopes: string[]) =>
    ok(call('POST', '/admin/api_tokens', { token: admin, body: { name, scopes } }), `token ${name}`);
  const scim = await mint('Directory sync', ['scim']);
  const scimAuth = { headers: { authorization: `Bearer ${scim.token}` } };

  const team = await ok(call('POST', '/teams', { token: admin, body: { name: 'Day shift' } }), 'removed team');
  made.removedTeamid = team.teamid;
  await ok(call('PUT', `/guides/${made.guideid}/teams/${team.teamid}`, { token: admin }), 'team grant');
  await ok(root(`/scim/v2/Groups/${team.teamid}`, scimAuth), 'SCIM Group DELETE');

  made.deprovisionedUserid = (await person(site)).userid;
  await ok(root(`/scim/v2/Users/${made.deprovisionedUserid}`, scimAuth), 'SCIM User DELETE');

  const bot = await mint('Importer bot', ['full']);
  const botAuth = { headers: { authorization: `api ${bot.token}` } };
  made.tokenGuideid = (
    await ok(
      call('POST', '/guides', { ...botAuth, body: { category: made.category, type: 'how-to', title: 'Imported' } }),
      "token's guide",
    )
  ).guideid;
  made.tokenCommentid = (
    await ok(
      call('POST', `/comments/guide/${made.guideid}`, { ...botAuth, body: { text: 'Synced from the line log.' } }),
      "token's comment",
    )
  ).commentid;
  await ok(call('DELETE', `/admin/api_tokens/${bot.tokenid}`, { token: admin }), 'revoke');
  await ok(call('DELETE', `/admin/api_tokens/${scim.tokenid}`, { token: admin }), 'revoke');
}

/** A new how-to guide of `author`'s in `category`. */
function newGuide(site: Site, author: Person, category: string, title: string) {
  return ok(
    site.call('POST', '/guides', { token: author.token, body: { category, type: 'how-to', title } }),
    `guide ${title}`,
  );
}

/** Skills, a level, a gated guide's work-log record, an acknowledgement signed and a retraining mark. */
async function populateCompetency(site: Site, made: Population, author: Person, trainee: Person) {
  const call = site.call;
  const trainer = await person(site, ['Admin']);
  const guide = await newGuide(site, author, made.category, 'Check the belt');
  made.competencyGuideid = guide.guideid;
  await ok(
    call('PUT', `/guides/${guide.guideid}/public`, {
      token: author.token,
      query: { revisionid: guide.revisionid },
      body: {},
    }),
    'publish',
  );
  const skill = await ok(
    call('POST', '/qualifications/skills', {
      token: trainer.token,
      body: { name: 'Belt service', guideids: [guide.guideid], recertification_days: 365 },
    }),
    'skill',
  );
  made.skillid = skill.skillid;
  await ok(
    call('PUT', `/qualifications/skills/${skill.skillid}/levels/${trainee.userid}`, {
      token: trainer.token,
      body: { level: 3, password: trainer.password },
    }),
    'level',
  );
  await ok(
    call('PUT', `/qualifications/gating/guides/${guide.guideid}`, {
      token: author.token,
      body: { gate_mode: 'warn', min_level: 3 },
    }),
    'gate',
  );
  made.gatedEntryid = (
    await ok(
      call('POST', '/work_log', { token: trainee.token, body: { guideid: guide.guideid, workorderid: 'WO-8' } }),
      'gated entry',
    )
  ).entryid;
  await ok(
    call('PUT', `/acknowledgements/settings/guides/${guide.guideid}`, {
      token: author.token,
      body: { audience_userids: [trainee.userid], due_days: 7 },
    }),
    'acknowledgement settings',
  );
  const release = await ok(
    call('POST', '/guides/releases', { token: author.token, body: { guideid: guide.guideid, release_type: 'major' } }),
    'competency release',
  );
  made.acknowledgedReleaseid = release.releaseid;
  // The release's countersignature marks (none: the signature completes on its own).
  await ok(
    call('PUT', `/acknowledgements/${release.releaseid}/countersign-steps`, {
      token: author.token,
      body: { stepids: [] },
    }),
    'countersign steps',
  );
  await ok(
    call('POST', `/acknowledgements/${release.releaseid}/sign`, {
      token: trainee.token,
      body: { password: trainee.password },
    }),
    'acknowledge',
  );
  await ok(call('POST', `/acknowledgements/${release.releaseid}/retraining`, { token: author.token }), 'retraining');
}

/** The GETs compared on both sites, each with the token that may read it. */
export function readingsOf(made: Population): Array<[string, string]> {
  const [author, trainee] = made.people as [Person, Person, Person];
  return [
    ...made.people.map((p): [string, string] => [`/users/${p.userid}`, 'admin']),
    [`/teams/${made.teamid}`, 'admin'],
    [`/guides/${made.guideid}`, 'admin'],
    [`/guides/${made.guideid}/releases`, 'admin'],
    [`/guides/${made.guideid}/tags`, 'admin'],
    [`/wikis/CATEGORY/${made.category}`, 'admin'],
    [`/wikis/WIKI/${encodeURIComponent(made.wiki)}`, 'admin'],
    [`/wikis/WIKI/${encodeURIComponent(made.wiki)}/revisions`, 'admin'],
    [`/comments/${made.commentid}`, 'admin'],
    [`/user/media/GuideImage/${made.imageid}`, author.token],
    ['/user/favorites/guides', trainee.token],
    [`/courses/${made.courseid}`, 'admin'],
    [`/course_assignments/${made.assignmentid}`, 'admin'],
    [`/work_log/${made.entryid}`, 'admin'],
    ['/quizzes/sessions', trainee.token],
    [`/approvals/request/${made.approvalRequestid}`, 'admin'],
    [`/audit/documents/guide/${made.guideid}`, 'admin'],
    [`/audit/users/${trainee.userid}`, 'admin'],
    ['/tags', 'admin'],
    [`/quizzes/${made.quizid}`, 'admin'],
    [`/step_forms/stepid/${made.stepids[0]}`, 'admin'],
    ['/approvals/processes', 'admin'],
    [`/guides/${made.guideid}/approvalProcesses`, 'admin'],
    [`/guides/${made.guideid}/users`, 'admin'],
    [`/teams/${made.teamid}/course_assignments`, 'admin'],
    [`/users/${trainee.userid}/completions`, 'admin'],
    [`/periodic_review/${made.scheduleid}`, 'admin'],
    [`/qualifications/skills/${made.skillid}`, 'admin'],
    ['/qualifications/matrix', trainee.token],
    [`/acknowledgements/${made.acknowledgedReleaseid}/signatures`, 'admin'],
    [`/acknowledgements/${made.acknowledgedReleaseid}/countersign-steps`, 'admin'],
    [`/acknowledgements/${made.acknowledgedReleaseid}`, trainee.token],
    [`/work_log/${made.gatedEntryid}/qualification`, 'admin'],
    [`/guides/${made.guideid}/teams`, 'admin'],
    [`/users/${made.deprovisionedUserid}`, 'admin'],
    [`/guides/${made.tokenGuideid}`, 'admin'],
    [`/comments/${made.tokenCommentid}`, 'admin'],
  ];
}

/**
 * Runs `read` on every reading of `made`, a few at a time: the two sites answer side by side
 * rather than one GET after another. Resolves when all have; the first failure rejects.
 */
export async function onEachReading(
  made: Population,
  read: (path: string, token: string) => Promise<void>,
  concurrency = 4,
): Promise<void> {
  const readings = readingsOf(made);
  let next = 0;
  const worker = async () => {
    while (next < readings.length) {
      const [path, token] = readings[next++]!;
      await read(path, token);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** A body with hosts and presigned query strings out of its URLs (they differ between stacks). */
export function withoutHosts(body: unknown): unknown {
  return JSON.parse(
    JSON.stringify(body)
      .replace(/https?:\/\/[^/"\\]+/g, 'HOST')
      .replace(/\?X-Amz-[^"\\]*/g, ''),
  );
}

/** The JSON paths (`a.b[0].c`) where two bodies differ; hosts are taken out first. */
export function differingPaths(before: unknown, after: unknown): string[] {
  const paths: string[] = [];
  const walk = (a: unknown, b: unknown, at: string) => {
    if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      for (const key of keys) {
        const next = Array.isArray(a) ? `${at}[${key}]` : at ? `${at}.${key}` : key;
        walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], next);
      }
    } else if (JSON.stringify(a) !== JSON.stringify(b)) paths.push(at || '(body)');
  };
  walk(withoutHosts(before), withoutHosts(after), '');
  return paths;
}
