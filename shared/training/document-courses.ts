/**
 * The courses that have a stage on a document, and the people assigned to them (docs/competency.md,
 * decision 245). No document → stages index exists: the courses are read through the course list
 * (one Query per 100 courses and a BatchGet), which a release pays once; the assignees are the
 * active rows of each course's assignments (per assignment, a Query per 100 rows).
 */
import { COURSES_COLLECTION, getCourses, type CourseRecord, type CourseStageRecord } from '../db/entities/course.ts';
import { listCourseAssignments } from '../db/entities/course-assignment.ts';
import { assignmentRowChunks } from '../db/entities/training-row.ts';
import { sortedRefChunks } from '../db/sorted-refs.ts';
import type { DocRef } from '../db/entities/training-record.ts';

export interface CourseOnDocument {
  course: CourseRecord;
  /** The course's stages on the document (usually one). */
  stages: CourseStageRecord[];
}

export async function coursesOnDocument(doc: DocRef): Promise<CourseOnDocument[]> {
  const found: CourseOnDocument[] = [];
  for await (const refs of sortedRefChunks(COURSES_COLLECTION, 'title')) {
    const courses = await getCourses(refs.map((ref) => Number(ref.wikiid)));
    for (const course of courses) {
      const stages = course.stages.filter((stage) => stage.doctype === doc.doctype && stage.docid === doc.docid);
      if (stages.length > 0) found.push({ course, stages });
    }
  }
  return found;
}

const ASSIGNMENT_PAGE = 100;

/** The users an active assignment of the course covers (team assignments: each member's row). */
export async function courseAssigneeIds(wikiid: number): Promise<number[]> {
  const userids = new Set<number>();
  for (let offset = 0; ; offset += ASSIGNMENT_PAGE) {
    const assignments = await listCourseAssignments(wikiid, undefined, { limit: ASSIGNMENT_PAGE, offset });
    for (const assignment of assignments)
      for await (const rows of assignmentRowChunks(assignment.course_assignmentid))
        for (const row of rows) if (row.active) userids.add(row.userid);
    if (assignments.length < ASSIGNMENT_PAGE) break;
  }
  return [...userids];
}
