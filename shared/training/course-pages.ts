/**
 * Reading a course: its wiki page and course item (an id that is not a course is a 404), and
 * its full view for a caller — live document titles, the caller's own stage states when the
 * course is assigned to them, aggregates for Authors and Admins.
 */
import { siteUrl } from '../config.ts';
import { ForbiddenError, NotFoundError } from '../domain/errors.ts';
import type { StageState } from '../domain/stage-status.ts';
import { hasRole, type Caller } from '../domain/caller.ts';
import { getCoursePages, type CourseRecord } from '../db/entities/course.ts';
import { listTraineeRows } from '../db/entities/training-row.ts';
import { getUser, getUsers } from '../db/entities/user.ts';
import { wikiFromItem, type WikiRecord } from '../db/entities/wiki.ts';
import { imageGuidsOf } from '../media/wiki-image-guids.ts';
import { stageDocuments } from './documents.ts';
import { stageOutcomes } from './stage-facts.ts';
import { courseView, type CourseView } from '../views/course-views.ts';

export interface CoursePage {
  wiki: WikiRecord;
  course: CourseRecord;
}

export async function findCourse(wikiid: number): Promise<CoursePage | undefined> {
  const [found] = await getCoursePages([wikiid]);
  return found ? { wiki: wikiFromItem(found.page), course: found.course } : undefined;
}

export async function requireCourse(wikiid: number): Promise<CoursePage> {
  const found = await findCourse(wikiid);
  if (!found) throw new NotFoundError(`No course with wikiid ${wikiid}`);
  return found;
}

/**
 * The course as GET /courses/{wikiid} lets the caller read it (and so the course's page): a
 * disabled course only to Authors and to the users it is assigned to (403 for anyone else).
 */
export async function readableCourse(caller: Caller, wikiid: number): Promise<CoursePage> {
  const page = await requireCourse(wikiid);
  if (!page.course.enabled && !hasRole(caller, 'Author') && !(await listTraineeRows(caller.userid, wikiid)).length) {
    throw new ForbiddenError('This course is disabled');
  }
  return page;
}

/** The viewer's own stage states on the course, or null when it is not assigned to them. */
export async function ownStates(userid: number, course: CourseRecord): Promise<Map<number, StageState> | null> {
  const rows = await listTraineeRows(userid, course.wikiid);
  if (rows.length === 0) return null;
  const outcomes = (await stageOutcomes([userid], course.stages)).get(userid)!;
  return new Map(outcomes.map((outcome) => [outcome.stage.course_stageid, outcome.state]));
}

/** The full course object (single reads): live document titles, the given or the viewer's states. */
export async function courseViewFor(
  caller: Caller,
  page: CoursePage,
  states?: Map<number, StageState> | null,
): Promise<CourseView> {
  const [author, documents, own, imageGuids] = await Promise.all([
    getUser(page.wiki.author_userid),
    stageDocuments(page.course.stages),
    states !== undefined ? Promise.resolve(states) : ownStates(caller.userid, page.course),
    imageGuidsOf([page.wiki.contents_raw]),
  ]);
  return courseView(page.wiki, page.course, {
    siteUrl: siteUrl(),
    author,
    canEdit: hasRole(caller, 'Author'),
    canSeeAggregates: hasRole(caller, 'Author'),
    documents,
    states: own,
    imageGuids,
  });
}

/** List items: stored stage titles, no per-viewer states. */
export async function courseListViews(caller: Caller, pages: CoursePage[]): Promise<CourseView[]> {
  const [users, imageGuids] = await Promise.all([
    getUsers([...new Set(pages.map((page) => page.wiki.author_userid))]),
    imageGuidsOf(pages.map((page) => page.wiki.contents_raw)),
  ]);
  const authors = new Map(users.map((user) => [user.userid, user]));
  return pages.map((page) =>
    courseView(page.wiki, page.course, {
      siteUrl: siteUrl(),
      author: authors.get(page.wiki.author_userid),
      canEdit: hasRole(caller, 'Author'),
      canSeeAggregates: hasRole(caller, 'Author'),
      imageGuids,
    }),
  );
}
