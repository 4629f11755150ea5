/**
 * Course use cases. A course is a COURSE-namespace wiki page (title unique in the namespace,
 * revisioned like every page) with ordered stages; the page and the course item change in one
 * transaction guarded by the page's revisionid. Authors and Admins create, edit and delete
 * courses; every signed-in user reads them (aggregates only for Authors and Admins).
 */
import { config } from '../../shared/config.ts';
import {
  ConflictError,
  ForbiddenError,
  StaleRevisionError,
  ValidationError,
  type FieldProblem,
} from '../../shared/domain/errors.ts';
import { canonicalJson } from '../../shared/domain/canonical-json.ts';
import { searchTokens } from '../../shared/domain/search-tokens.ts';
import { canonicalTitle, titleProblem, MAX_CONTENTS_LENGTH } from '../../shared/domain/wiki-namespaces.ts';
import { renderWiki } from '../../shared/domain/wiki-syntax/index.ts';
import { assertNamedImagesUsable } from '../../shared/media/wiki-image-guids.ts';
import { plainExcerpt } from '../../shared/views/wiki-views.ts';
import { hasRole, serviceAuthorFields, type Caller } from '../../shared/domain/caller.ts';
import { nextId, nextIds } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { nextRevisionId, staleRevisionConflict } from '../../shared/db/revisions.ts';
import { searchIds } from '../../shared/db/search-index.ts';
import { sortedRefPage } from '../../shared/db/sorted-refs.ts';
import { transactWrite, TransactionConditionFailed } from '../../shared/db/transactions.ts';
import {
  courseCreateWrites,
  courseDeleteWrites,
  coursePlacement,
  COURSES_COLLECTION,
  courseUpdateWrites,
  getCoursePages,
  reindexCourse,
  type CourseOrder,
  type CourseRecord,
  type CourseStageRecord,
} from '../../shared/db/entities/course.ts';
import { listCourseAssignments } from '../../shared/db/entities/course-assignment.ts';
import { getTeams } from '../../shared/db/entities/team.ts';
import { assignmentRowChunks, listTraineeRows } from '../../shared/db/entities/training-row.ts';
import {
  wikiContentUpdateWrites,
  wikiCreateWrites,
  wikiDeleteWrites,
  wikiFromItem,
  type WikiRecord,
} from '../../shared/db/entities/wiki.ts';
import { cancelAssignment } from '../../shared/training/assignments.ts';
import {
  courseListViews,
  courseViewFor,
  readableCourse,
  requireCourse,
  type CoursePage,
} from '../../shared/training/course-pages.ts';
import { stageDocuments } from '../../shared/training/documents.ts';
import { managesUser } from '../../shared/training/managers.ts';
import {
  MAX_STAGES,
  type CourseInput,
  type CourseListQuery,
  type CoursePatch,
  type StageInput,
} from './courses.schemas.ts';
import { refreshDueRows, refreshRows } from '../../shared/training/rows.ts';

/** A title search reads at most this many matching courses, then sorts and pages them. */
const SEARCH_CAP = 1000;

function validTitle(raw: string): string {
  const title = canonicalTitle(raw);
  const problem = titleProblem(title);
  if (problem) throw ValidationError.field('title', 'invalid', problem);
  return title;
}

function validContents(contents: string): string {
  if (contents.length > MAX_CONTENTS_LENGTH)
    throw ValidationError.field('contents', 'too_long', `contents must be at most ${MAX_CONTENTS_LENGTH} characters`);
  return contents;
}

function validLangid(langid: string | undefined): string {
  const languages = config().STEPWISE_LANGUAGES;
  if (langid === undefined) return languages[0] ?? 'en';
  if (!languages.includes(langid))
    throw ValidationError.field('langid', 'invalid', `langid must be one of: ${languages.join(', ')}`);
  return langid;
}

/**
 * Stages as stored: documents must exist (wiki pages other than courses), each document once,
 * a recurrence names both quantity and unit, an assessment names an existing team. A stage
 * keeps its course_stageid (and assessment id) when the input names it; new stages get new ids.
 */
async function resolveStages(inputs: StageInput[], previous: CourseStageRecord[]): Promise<CourseStageRecord[]> {
  if (inputs.length > MAX_STAGES)
    throw ValidationError.field('stages', 'too_many', `A course has at most ${MAX_STAGES} stages`);
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const before = new Map(previous.map((stage) => [stage.course_stageid, stage]));
  inputs.forEach((stage, index) => {
    const key = `${stage.doctype}#${stage.docid}`;
    if (seen.has(key))
      problems.push({
        field: `stages[${index}].docid`,
        code: 'duplicate',
        message: `${stage.doctype} ${stage.docid} is already a stage of this course`,
      });
    seen.add(key);
    if ((stage.frequency_quantity == null) !== (stage.frequency_unit == null)) {
      problems.push({
        field: `stages[${index}].frequency_unit`,
        code: 'invalid',
        message: 'A recurrence needs both frequency_quantity and frequency_unit',
      });
    }
    if (stage.course_stageid !== undefined && !before.has(stage.course_stageid)) {
      problems.push({
        field: `stages[${index}].course_stageid`,
        code: 'not_found',
        message: `The course has no stage ${stage.course_stageid}`,
      });
    }
  });
  const [documents, teams] = await Promise.all([
    stageDocuments(inputs),
    getTeams([...new Set(inputs.flatMap((stage) => (stage.assessment ? [stage.assessment.teamid] : [])))]),
  ]);
  const teamIds = new Set(teams.map((team) => team.teamid));
  inputs.forEach((stage, index) => {
    if (!documents.has(`${stage.doctype}#${stage.docid}`))
      problems.push({
        field: `stages[${index}].docid`,
        code: 'not_found',
        message: `No ${stage.doctype} with id ${stage.docid}`,
      });
    if (stage.assessment && !teamIds.has(stage.assessment.teamid)) {
      problems.push({
        field: `stages[${index}].assessment.teamid`,
        code: 'not_found',
        message: `No team with teamid ${stage.assessment.teamid}`,
      });
    }
  });
  if (problems.length > 0) throw new ValidationError(problems.map((problem) => problem.message).join('; '), problems);
  const newStageIds = await nextIds(
    'course_stage',
    inputs.filter((stage) => stage.course_stageid === undefined).length,
  );
  const newAssessmentIds = await nextIds(
    'stage_assessment',
    inputs.filter(
      (stage) => stage.assessment && !(stage.course_stageid && before.get(stage.course_stageid)?.stage_assessmentid),
    ).length,
  );
  return inputs.map((stage, index) => {
    const old = stage.course_stageid !== undefined ? before.get(stage.course_stageid) : undefined;
    const stage_assessmentid = stage.assessment ? (old?.stage_assessmentid ?? newAssessmentIds.shift()!) : null;
    return {
      course_stageid: old?.course_stageid ?? newStageIds.shift()!,
      doctype: stage.doctype,
      docid: stage.docid,
      orderby: index,
      strictness: stage.strictness ?? null,
      frequency_quantity: stage.frequency_quantity ?? null,
      frequency_unit: stage.frequency_unit ?? null,
      title: documents.get(`${stage.doctype}#${stage.docid}`)!.title,
      stage_assessmentid,
      assessment_teamid: stage.assessment?.teamid ?? null,
    };
  });
}

const excerptOf = (contents: string) =>
  plainExcerpt(renderWiki(contents, { siteUrl: config().STEPWISE_SITE_URL }).json);

function titleTaken(error: unknown, title: string): ValidationError | undefined {
  if (error instanceof TransactionConditionFailed && error.failedLabels.includes('WIKI_TITLE')) {
    return ValidationError.field('title', 'already_exists', `A course titled ${title} already exists`);
  }
  return undefined;
}

export async function create(caller: Caller, input: CourseInput) {
  const title = validTitle(input.title);
  const contents = validContents(input.contents);
  await assertNamedImagesUsable(caller, 'contents', [contents]);
  const langid = validLangid(input.langid);
  const stages = await resolveStages(input.stages ?? [], []);
  const now = nowSeconds();
  const [wikiid, revisionid] = await Promise.all([nextId('wiki'), nextRevisionId()]);
  const wiki: WikiRecord = {
    wikiid,
    namespace: 'COURSE',
    title,
    display_title: title,
    langid,
    revisionid,
    contents_raw: contents,
    excerpt: excerptOf(contents),
    description: '',
    identification_raw: '',
    image: null,
    flags: [],
    table_of_contents: false,
    author_userid: caller.userid,
    ...serviceAuthorFields(caller),
    modified_by: caller.userid,
    parent_wikiid: null,
    child_count: 0,
    created_date: now,
    modified_date: now,
  };
  const course: CourseRecord = {
    wikiid,
    title,
    enabled: input.enabled === false ? 0 : 1,
    publish_date: input.publish_date ?? now,
    stages,
    author_userid: caller.userid,
    ...serviceAuthorFields(caller),
    created_date: now,
    modified_date: null,
    search_tokens: searchTokens(title),
    assignee_count: 0,
    rows_total: 0,
    rows_completed: 0,
    rows_in_progress: 0,
    order_placement: null,
    order_version: 0,
  };
  try {
    await transactWrite([...wikiCreateWrites(wiki), ...courseCreateWrites(course)]);
  } catch (error) {
    throw titleTaken(error, title) ?? error;
  }
  await reindexCourse(wikiid);
  return courseViewFor(caller, { wiki, course }, null);
}

export async function get(caller: Caller, wikiid: number) {
  if (hasRole(caller, 'Author')) {
    // Aggregates shown: let recurrence expiries reach the stored counts first (bounded).
    await requireCourse(wikiid);
    await refreshDueRows();
  }
  return courseViewFor(caller, await readableCourse(caller, wikiid));
}

/** Sorts bounded candidate sets (a user's courses, a title search) the way the order references do. */
function sortPages(pages: CoursePage[], orderby: CourseOrder, descending: boolean): CoursePage[] {
  const key = (page: CoursePage) =>
    `${coursePlacement(page.course).values[orderby]}#${String(page.wiki.wikiid).padStart(12, '0')}`;
  const sorted = [...pages].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return descending ? sorted.reverse() : sorted;
}

async function pagesOf(wikiids: number[]): Promise<CoursePage[]> {
  return (await getCoursePages(wikiids)).map(({ page, course }) => ({ wiki: wikiFromItem(page), course }));
}

/** GET /courses: {"courses": [...]} in pages of `pageSize`, sorted by `orderby` (wire notes §3.17). */
export async function list(caller: Caller, query: CourseListQuery) {
  const includeDisabled = query.disabledOkay && hasRole(caller, 'Author');
  if (hasRole(caller, 'Author')) await refreshDueRows();
  const offset = (query.page - 1) * query.pageSize;
  const descending = query.direction === 'DESC';
  let pages: CoursePage[];
  if (query.userid !== undefined || query.query) {
    let ids: number[];
    if (query.userid !== undefined) {
      if (query.userid !== caller.userid && !(await managesUser(caller, query.userid)))
        throw new ForbiddenError('Only the user, their managers and Admins see their courses');
      ids = [...new Set((await listTraineeRows(query.userid)).map((row) => row.wikiid))];
    } else {
      ids = await searchIds('COURSE', query.query!, SEARCH_CAP);
    }
    const candidates = (await pagesOf(ids)).filter((page) => includeDisabled || page.course.enabled);
    pages = sortPages(candidates, query.orderby, descending).slice(offset, offset + query.pageSize);
  } else {
    const refs = await sortedRefPage(
      COURSES_COLLECTION,
      query.orderby,
      {
        descending,
        filter: includeDisabled
          ? undefined
          : { FilterExpression: 'enabled = :one', ExpressionAttributeValues: { ':one': 1 } },
      },
      { limit: query.pageSize, offset },
    );
    pages = await pagesOf(refs.map((ref) => Number(ref.wikiid)));
  }
  return { courses: await courseListViews(caller, pages) };
}

/** Every active row of the course, recomputed (after its stages changed). */
async function refreshCourseRows(wikiid: number): Promise<void> {
  for (let offset = 0; ; offset += 200) {
    const assignments = await listCourseAssignments(wikiid, undefined, { limit: 200, offset });
    for (const assignment of assignments) {
      for await (const rows of assignmentRowChunks(assignment.course_assignmentid)) {
        await refreshRows(
          rows
            .filter((row) => row.active)
            .map((row) => ({ course_assignmentid: row.course_assignmentid, userid: row.userid })),
        );
      }
    }
    if (assignments.length < 200) return;
  }
}

export async function patch(caller: Caller, wikiid: number, expectedRevision: number | undefined, input: CoursePatch) {
  const page = await requireCourse(wikiid);
  if (expectedRevision === undefined)
    throw ValidationError.field(
      'revisionid',
      'missing_field',
      'revisionid is required (the current revisionid of the course)',
    );
  if (Object.values(input).every((value) => value === undefined)) {
    throw ValidationError.field(
      'body',
      'missing_field',
      'Give at least one of title, contents, stages, enabled, publish_date',
    );
  }
  const { wiki, course } = page;
  const title = input.title === undefined ? wiki.title : validTitle(input.title);
  const contents = input.contents === undefined ? wiki.contents_raw : validContents(input.contents);
  await assertNamedImagesUsable(caller, 'contents', [contents], [wiki.contents_raw]);
  const stages = input.stages === undefined ? course.stages : await resolveStages(input.stages, course.stages);
  const now = nowSeconds();
  const afterWiki: WikiRecord = {
    ...wiki,
    title,
    display_title: title,
    contents_raw: contents,
    excerpt: input.contents === undefined ? wiki.excerpt : excerptOf(contents),
    revisionid: await nextRevisionId(),
    modified_by: caller.userid,
    modified_date: now,
  };
  const afterCourse: CourseRecord = {
    ...course,
    title,
    enabled: input.enabled === undefined ? course.enabled : input.enabled ? 1 : 0,
    publish_date: input.publish_date ?? course.publish_date,
    stages,
    modified_date: now,
    search_tokens: searchTokens(title),
  };
  try {
    await transactWrite([
      ...wikiContentUpdateWrites(wiki, afterWiki, expectedRevision, { reverted_from: null }),
      ...courseUpdateWrites(course, afterCourse),
    ]);
  } catch (error) {
    const conflict = await staleRevisionConflict(error, 'wiki', async (item) =>
      courseViewFor(caller, { wiki: wikiFromItem(item), course }),
    );
    if (conflict) throw conflict;
    throw titleTaken(error, title) ?? error;
  }
  if (canonicalJson(stages) !== canonicalJson(course.stages)) await refreshCourseRows(wikiid);
  await reindexCourse(wikiid);
  return courseViewFor(caller, await requireCourse(wikiid));
}

/** At most this many assignments are cancelled by one course delete; past it the delete is refused (409). */
export const MAX_ASSIGNMENTS_CANCELLED_ON_DELETE = 1000;
const CANCEL_PAGE = 100;

/**
 * Cancels every active assignment of a course, in pages, within a bound: a course with more than
 * MAX_ASSIGNMENTS_CANCELLED_ON_DELETE is refused before anything changes, and assignments that
 * keep appearing (new ones made while it is deleted, or one that will not cancel) end in a 409
 * after the pages the ceiling allows, with the course left in place.
 */
async function cancelCourseAssignments(caller: Caller, wikiid: number): Promise<void> {
  const ceiling = MAX_ASSIGNMENTS_CANCELLED_ON_DELETE;
  const probe = await listCourseAssignments(wikiid, undefined, { limit: ceiling + 1, offset: 0 });
  if (probe.length > ceiling) {
    throw new ConflictError(
      `The course has more than ${ceiling} active assignments; cancel some first, then delete it`,
    );
  }
  const rounds = Math.ceil(ceiling / CANCEL_PAGE) + 1;
  for (let round = 0; round < rounds; round++) {
    const active = await listCourseAssignments(wikiid, undefined, { limit: CANCEL_PAGE, offset: 0 });
    if (active.length === 0) return;
    for (const assignment of active) {
      await cancelAssignment(assignment, { by: caller, reason: 'Course deleted' }).catch((error) => {
        // Already cancelled by someone else meanwhile: it leaves the list by itself.
        if (!(error instanceof ConflictError)) throw error;
      });
    }
  }
  const left = await listCourseAssignments(wikiid, undefined, { limit: 1, offset: 0 });
  if (left.length > 0) {
    throw new ConflictError('Assignments of the course kept changing while it was being deleted; try again');
  }
}

/**
 * Deletes a course: its active assignments are cancelled first (their rows stay as records),
 * then the page and the course item go together. `revisionid` is checked when given (the real
 * service's clients delete courses without one).
 */
export async function remove(caller: Caller, wikiid: number, expectedRevision: number | undefined): Promise<void> {
  const page = await requireCourse(wikiid);
  if (expectedRevision !== undefined && expectedRevision !== page.wiki.revisionid) {
    throw new StaleRevisionError(page.wiki.revisionid, await courseViewFor(caller, page), 'course');
  }
  await cancelCourseAssignments(caller, wikiid);
  const current = await requireCourse(wikiid);
  try {
    await transactWrite([
      ...wikiDeleteWrites(current.wiki, expectedRevision ?? current.wiki.revisionid),
      ...courseDeleteWrites(current.course),
    ]);
  } catch (error) {
    const conflict = await staleRevisionConflict(error, 'wiki', async (item) =>
      courseViewFor(caller, { wiki: wikiFromItem(item), course: current.course }),
    );
    if (conflict) throw conflict;
    throw error;
  }
}
