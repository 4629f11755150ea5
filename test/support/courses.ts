/** Course, team and assignment helpers for the course API tests. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from './api.ts';
import { createGuide } from '../api/guide-fixtures.ts';
import { localDb } from './local-db.ts';
import { importPackage } from './modules.ts';

export interface StageBody {
  doctype: string;
  docid: number;
  strictness?: 'major' | 'minor' | null;
  frequency_quantity?: number | null;
  frequency_unit?: string | null;
  assessment?: { teamid: number } | null;
  course_stageid?: number;
}

/** A course made by the Admin (or `token`); throws unless 201. */
export async function createCourse(body: Record<string, unknown> = {}, token?: string) {
  const response = await api('POST', '/courses', {
    token: token ?? (await loginAdmin()),
    body: { title: `Course ${uniqueSuffix()}`, contents: 'What this course teaches.', stages: [], ...body },
  });
  if (response.status !== 201) throw new Error(`createCourse: ${response.status} ${response.text}`);
  return response.body;
}

/** A guide made by the Admin: a stage document. */
export async function stageGuide(): Promise<{ guideid: number; title: string; revisionid: number }> {
  return createGuide(await loginAdmin());
}

export { createTeam } from './api.ts';

export async function assign(body: Record<string, unknown>, token?: string) {
  const response = await api('POST', '/course_assignments', { token: token ?? (await loginAdmin()), body });
  if (response.status !== 201) throw new Error(`assign: ${response.status} ${response.text}`);
  return response.body;
}

/** A course with one guide stage (and the given stage options), assigned to a fresh user. */
export async function assignedTrainee(stage: Partial<StageBody> = {}, options: { due_within?: number } = {}) {
  // The trainee's account is made while the guide and course are (nothing of one needs the other).
  const [{ guide, course }, trainee] = await Promise.all([
    stageGuide().then(async (guide) => ({
      guide,
      course: await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid, ...stage }] }),
    })),
    createUser(),
  ]);
  const assignment = await assign({ wikiid: course.wikiid, userid: trainee.userid, ...options });
  return { guide, course, trainee, assignment };
}

export async function getAssignment(id: number, token?: string) {
  return api('GET', `/course_assignments/${id}`, { token: token ?? (await loginAdmin()) });
}

/** The (only) stage entry of a user in an assignment record. */
export function entryOf(record: any, userid: number, index = 0) {
  const status = record.completion_status.find((entry: { userid: number }) => entry.userid === userid);
  if (!status) throw new Error(`no completion_status for user ${userid}: ${JSON.stringify(record.completion_status)}`);
  return status.stages[index];
}

export async function releaseGuide(guideid: number, release_type: 'major' | 'minor') {
  const response = await api('POST', '/guides/releases', {
    token: await loginAdmin(),
    body: { guideid, release_type },
  });
  if (response.status !== 201) throw new Error(`release: ${response.status} ${response.text}`);
  return response.body;
}

export type { TestUser };

/** The local stack's DynamoDB, for moving stored times into the past (no sleeping in tests). */
const ddb = () => localDb();

const pad = (id: number) => String(id).padStart(12, '0');

/** Moves a trainee's last completion of a document `seconds` into the past, as if time had passed. */
export async function ageCompletion(userid: number, doctype: string, docid: number, seconds: number): Promise<void> {
  const key = { pk: `USER#${userid}`, sk: `TRAINDOC#${doctype}#${pad(docid)}` };
  const { Item } = await ddb().send(new GetCommand({ TableName: 'stepwise', Key: key }));
  if (!Item) throw new Error(`no completion of ${doctype} ${docid} for ${userid}`);
  Item.init_date -= seconds;
  if (Item.end_date !== null) Item.end_date -= seconds;
  await ddb().send(new PutCommand({ TableName: 'stepwise', Item }));
}

/** Moves a stored row's dates `seconds` into the past (its place in the due queue too). */
export async function ageRow(course_assignmentid: number, userid: number, seconds: number): Promise<void> {
  const key = { pk: `ASSIGNMENT#${course_assignmentid}`, sk: `ROW#${pad(userid)}` };
  const { Item } = await ddb().send(new GetCommand({ TableName: 'stepwise', Key: key }));
  if (!Item) throw new Error(`no row ${course_assignmentid}/${userid}`);
  for (const field of ['assignment_date', 'due_date', 'course_completion_date', 'recurrent_date'])
    if (typeof Item[field] === 'number') Item[field] -= seconds;
  if (Item.recurrent_date !== null)
    Item.gsi2sk = `${pad(Item.recurrent_date)}#${pad(course_assignmentid)}#${pad(userid)}`;
  await ddb().send(new PutCommand({ TableName: 'stepwise', Item }));
}

/** A module imported from `zip` and made current, in a course assigned to a new learner. */
export async function assignedModule(admin: string, zip: Buffer) {
  const { moduleid, importid } = await importPackage(admin, zip);
  await api('PUT', `/external_training_modules/${moduleid}/current`, { token: admin, body: { importid } });
  const course = await createCourse({ stages: [{ doctype: 'external_training_module', docid: moduleid }] });
  const learner = await createUser();
  const assignment = await assign({ wikiid: course.wikiid, userid: learner.userid });
  return { moduleid, learner, assignment };
}
