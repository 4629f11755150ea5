/**
 * Courses: each course's COURSE-namespace wiki page (with its current revision and title claim)
 * and its course item (stages, enabled flag, aggregates, list places), with their assessment,
 * module-usage and search items, written through the wiki and course entities' own builders.
 *
 * Read as an Admin: GET /courses?disabledOkay (list items carry the stage titles as stored),
 * GET /wikis/COURSE/{title}/revisions (who made the current revision, and every revision id)
 * and the stored row counts of GET /course_assignments/completion/course/{wikiid}.
 */
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import {
  courseCreateWrites,
  coursePlacement,
  COURSES_COLLECTION,
  type CourseRecord,
  type CourseStageRecord,
} from '../../../../shared/db/entities/course.ts';
import { wikiCreateWrites, type WikiRecord } from '../../../../shared/db/entities/wiki.ts';
import { padId } from '../../../../shared/db/keys.ts';
import { sortedRefWrites } from '../../../../shared/db/sorted-refs.ts';
import { searchTokens } from '../../../../shared/domain/search-tokens.ts';
import { renderWiki } from '../../../../shared/domain/wiki-syntax/index.ts';
import { siteUrl } from '../../../../shared/config.ts';
import { plainExcerpt } from '../../../../shared/views/wiki-views.ts';
import type { CourseView } from '../../../../shared/views/course-views.ts';
import type { CourseReportView } from '../../../../shared/views/training-report-views.ts';
import type { WikiNamespace } from '../../../../shared/domain/wiki-namespaces.ts';

/** Stored attributes API 2.0 does not hand out, and what the crawler writes instead. */
export const COURSE_UNEXPOSED = {
  Course: { order_version: 'internal guard of the list places: starts again at 1' },
  WikiRevision: {
    '(revisions before the current one)': 'their contents are not shown: only the current revision is carried',
  },
} as const;

const COURSE_PAGE_SIZE = 100;

interface RevisionSummary {
  revisionid: number;
  date: number;
  userid: number;
  reverted_from: number | null;
  current: boolean;
}

/** Every course the Admin sees, disabled ones included, in id order of the pages read. */
async function* courseList(context: CrawlContext): AsyncIterable<CourseView[]> {
  for (let page = 1; ; page++) {
    const body = await context.api.get<{ courses: CourseView[] }>('/courses', {
      disabledOkay: true,
      orderby: 'title',
      page,
      pageSize: COURSE_PAGE_SIZE,
    });
    yield body.courses;
    if (body.courses.length < COURSE_PAGE_SIZE) return;
  }
}

async function revisionsOf(context: CrawlContext, title: string): Promise<RevisionSummary[]> {
  const revisions: RevisionSummary[] = [];
  for await (const page of context.api.pages<RevisionSummary>(`/wikis/COURSE/${encodeURIComponent(title)}/revisions`, {
    pageSize: 200,
  })) {
    revisions.push(...page);
  }
  return revisions;
}

function stagesOf(view: CourseView): CourseStageRecord[] {
  return view.stages.map((stage) => ({
    course_stageid: stage.course_stageid,
    doctype: stage.doctype,
    docid: stage.docid,
    orderby: stage.orderby,
    strictness: stage.strictness,
    frequency_quantity: stage.frequency_quantity,
    frequency_unit: stage.frequency_unit,
    title: stage.title,
    stage_assessmentid: stage.stage_assessmentid,
    assessment_teamid: stage.assessment?.teamid ?? null,
  })) as CourseStageRecord[];
}

/** The page as the courses service writes it: a COURSE page has no description, image or parent. */
export function coursePageOf(view: CourseView, current: RevisionSummary): WikiRecord {
  return {
    wikiid: view.wikiid,
    namespace: 'COURSE' as WikiNamespace,
    title: view.title,
    display_title: view.title,
    langid: view.langid,
    revisionid: view.revisionid,
    contents_raw: view.contents_raw,
    excerpt: plainExcerpt(renderWiki(view.contents_raw, { siteUrl: siteUrl() }).json),
    description: '',
    identification_raw: '',
    image: null,
    flags: view.flags as string[],
    table_of_contents: false,
    author_userid: view.author?.userid ?? current.userid,
    modified_by: current.userid,
    parent_wikiid: null,
    child_count: 0,
    created_date: view.created_date,
    modified_date: current.date,
  };
}

export function courseRecordOf(view: CourseView, report: CourseReportView | undefined, author: number): CourseRecord {
  const course: CourseRecord = {
    wikiid: view.wikiid,
    title: view.title,
    enabled: view.enabled ? 1 : 0,
    publish_date: view.publish_date,
    stages: stagesOf(view),
    author_userid: author,
    created_date: view.created_date,
    modified_date: view.modified_date,
    search_tokens: searchTokens(view.title),
    assignee_count: report?.assignee_count ?? view.assigneeCount ?? 0,
    rows_total: report?.progress.users ?? 0,
    rows_completed: report?.progress.completed ?? 0,
    rows_in_progress: report?.progress.in_progress ?? 0,
    order_placement: null,
    order_version: 1,
  };
  return { ...course, order_placement: coursePlacement(course) };
}

async function courseItems(context: CrawlContext, view: CourseView) {
  const revisions = await revisionsOf(context, view.title);
  for (const revision of revisions) context.sink.idSeen('revision', revision.revisionid);
  const current = revisions.find((revision) => revision.revisionid === view.revisionid);
  if (!current) {
    context.report.skipped(`course ${view.wikiid}`, 'the source lists no current revision for its page');
    return undefined;
  }
  if (revisions.length > 1) {
    context.report.unexposed('course page revisions before the current one', 'their contents are not shown');
  }
  const report = await context.api.find<CourseReportView>(`/course_assignments/completion/course/${view.wikiid}`, {
    limit: 1,
  });
  if (!report) context.report.unexposed('course completion counts', 'the source refused the course report');
  const page = coursePageOf(view, current);
  const course = courseRecordOf(view, report, page.author_userid);
  const pageItems = itemsOfWrites(wikiCreateWrites(page));
  const revisionItem = pageItems.find((item) => item.entity === 'WikiRevision');
  if (revisionItem) revisionItem.reverted_from = current.reverted_from;
  return [
    ...pageItems,
    ...itemsOfWrites([
      ...courseCreateWrites(course),
      ...sortedRefWrites(COURSES_COLLECTION, padId(course.wikiid), null, course.order_placement),
    ]),
  ];
}

export const coursesCrawler: ResourceCrawler = {
  name: 'courses',
  after: ['users', 'guides', 'wikis', 'teams'],
  async crawl(context) {
    // A course created or renamed while the list is paged shifts it: one may come twice.
    const read = new Set<number>();
    try {
      for await (const page of courseList(context)) {
        for (const view of page) {
          if (read.has(view.wikiid)) continue;
          read.add(view.wikiid);
          const unit = `course:${view.wikiid}`;
          context.sink.idSeen('wiki', view.wikiid);
          for (const stage of view.stages) {
            context.sink.idSeen('course_stage', stage.course_stageid);
            if (stage.stage_assessmentid) context.sink.idSeen('stage_assessment', stage.stage_assessmentid);
          }
          context.known.add('course', view.wikiid);
          if (context.isDone(unit)) continue;
          const items = await courseItems(context, view);
          if (!items) continue;
          await context.sink.items(items);
          await context.completed(unit);
        }
      }
    } catch (error) {
      if (!isDenied(error)) throw error;
      context.report.unexposed('courses', 'the source refused GET /courses to this account');
    }
  },
};
