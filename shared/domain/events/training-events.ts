/** Builders of the training events (no I/O): one per stage a completion concerns. */
import { domainEvent, type DomainEvent } from './catalogue.ts';

/** The parts of a trainee's completion of a document (training-record.ts) the events carry. */
interface CompletionState {
  course_assignment_stage_completionid: number;
  userid: number;
  doctype: string;
  docid: number;
  init_date: number;
  end_date: number | null;
  invalidated_by: number | null;
}

interface StageState {
  course_stageid: number;
  title: string;
}

/** The trainee's completion of a document: events of one trainee and document keep their order. */
export function completionEntity(record: Pick<CompletionState, 'userid' | 'doctype' | 'docid'>): string {
  return `COMPLETION#${record.userid}#${record.doctype}#${record.docid}`;
}

export function stageEvents(
  name: 'course_stage.completed' | 'course_stage.invalidated',
  stages: Array<{ stage: StageState; course: { wikiid: number } }>,
  record: CompletionState,
): DomainEvent[] {
  return stages.map(({ stage, course }) => {
    const data = {
      course_stageid: stage.course_stageid,
      wikiid: course.wikiid,
      docid: record.docid,
      doctype: record.doctype,
      title: stage.title,
      userid: record.userid,
      doc_completion: {
        course_assignment_stage_completionid: record.course_assignment_stage_completionid,
        init_date: record.init_date,
        end_date: record.end_date,
      },
    };
    return name === 'course_stage.completed'
      ? domainEvent(name, completionEntity(record), data)
      : domainEvent(name, completionEntity(record), { ...data, invalidated_by: record.invalidated_by ?? null });
  });
}

/** The trainee's row of an assignment: its events keep their order. */
export function rowEntity(row: { course_assignmentid: number; userid: number }): string {
  return `ASSIGNMENT#${row.course_assignmentid}#USER#${row.userid}`;
}

/** course_assignment.completed when a row becomes completed (from any other state or new). */
export function rowEvents(
  before: { status: string } | null,
  after: {
    course_assignmentid: number;
    wikiid: number;
    userid: number;
    status: string;
    course_completion_date: number | null;
    active: number;
  },
): DomainEvent[] {
  if (!after.active || after.status !== 'completed' || before?.status === 'completed') return [];
  return [
    domainEvent('course_assignment.completed', rowEntity(after), {
      course_assignmentid: after.course_assignmentid,
      wikiid: after.wikiid,
      userid: after.userid,
      course_completion_date: after.course_completion_date,
    }),
  ];
}
