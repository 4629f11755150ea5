/**
 * The event catalogue: every event Stepwise emits, with its payload (`data`). docs/events.md
 * lists them for integrators; a change here is a change of the public contract.
 *
 * Events are written to the outbox (shared/db/entities/outbox.ts) in the same transaction as
 * the change they report, and delivered from there (webhooks, EventBridge, xAPI). No I/O here.
 */

export interface DocCompletion {
  course_assignment_stage_completionid: number;
  init_date: number;
  end_date: number | null;
}

export interface CourseStageEventData {
  course_stageid: number;
  /** The course (wikiid) the stage belongs to. Not in §3.28's data; kept on the event, see envelope.ts. */
  wikiid: number;
  docid: number;
  doctype: string;
  title: string;
  userid: number;
  doc_completion: DocCompletion;
}

export interface AcknowledgementNoticeData {
  releaseid: number;
  doctype: string;
  docid: number;
  userid: number;
  due_date: number;
}

export interface LevelNoticeData {
  userid: number;
  skillid: number;
  level: number;
  expires_at: number;
}

/** Payload of each event, by name. */
export interface EventPayloads {
  'course_stage.completed': CourseStageEventData;
  'course_stage.invalidated': CourseStageEventData & { invalidated_by: number | null };
  'course_assignment.created': {
    course_assignmentid: number;
    wikiid: number;
    userid: number | null;
    teamid: number | null;
    due_within: number | null;
    created_by: number | null;
  };
  'course_assignment.completed': {
    course_assignmentid: number;
    wikiid: number;
    userid: number;
    course_completion_date: number | null;
  };
  'course_assignment.overdue': { course_assignmentid: number; wikiid: number; userid: number; due_date: number };
  'acknowledgement.overdue': { releaseid: number; doctype: string; docid: number; userid: number; due_date: number };
  /** Notices (docs/notices.md), sent by the sweep when their instant comes. */
  'acknowledgement.requested': AcknowledgementNoticeData;
  'acknowledgement.due_soon': AcknowledgementNoticeData;
  'acknowledgement.overdue_escalated': AcknowledgementNoticeData & { owner_userids: number[] };
  'qualification_level.lapsing': LevelNoticeData;
  'qualification_level.lapsed': LevelNoticeData;
  'retraining.assigned': {
    course_assignmentid: number;
    wikiid: number;
    userid: number;
    skillid: number;
    due_date: number | null;
  };
  'acknowledgement.countersign_requested': {
    releaseid: number;
    doctype: string;
    docid: number;
    userid: number;
    stepids: number[];
  };
  'acknowledgement.countersigned': {
    releaseid: number;
    doctype: string;
    docid: number;
    userid: number;
    supervisor_userid: number;
    stepids: number[];
  };
  'acknowledgement.declined': {
    releaseid: number;
    doctype: string;
    docid: number;
    userid: number;
    declineid: string;
    comment: string;
  };
  'guide.released': { guideid: number; releaseid: number; revisionid: number | null; version: string | null };
  'wiki.released': { wikiid: number; releaseid: number; revisionid: number | null; version: string | null };
  'approval.requested': {
    approval_requestid: number;
    doctype: string;
    docid: number;
    revisionid: number | null;
    requested_by: number | null;
  };
  'approval.signed': { approval_requestid: number; doctype: string; docid: number; userid: number; decision: string };
  'approval.approved': { approval_requestid: number; doctype: string; docid: number; revisionid: number | null };
  'approval.rejected': { approval_requestid: number; doctype: string; docid: number; revisionid: number | null };
  'periodic_review.due': { prdid: number; doctype: string; docid: number; reviewer_userid: number; due_date: number };
  'work_log.finished': {
    work_log_entryid: number;
    userid: number;
    operator_userid: number;
    guideid: number;
    workorderid: string;
    end_date: number | null;
  };
  'quiz_session.submitted': {
    quiz_sessionid: number;
    quizid: number;
    userid: number;
    attempt: number | null;
    score: number | null;
    passed: boolean | null;
  };
  /** userid: who started the import; null when a site API token did (decision 260). */
  'module_import.finished': {
    importid: number;
    moduleid: number;
    provider_version_number: number;
    userid: number | null;
  };
  'module_import.failed': {
    importid: number;
    moduleid: number;
    provider_version_number: number;
    userid: number | null;
    code: string | null;
    error: string | null;
  };
  'user.created': { userid: number; username: string };
  /** POST /webhooks/{id}/test: sent to that webhook only. */
  ping: { webhookid: number };
}

export type EventName = keyof EventPayloads;

/** Names a webhook can subscribe to (ping is sent on request, not subscribed). */
export const EVENT_NAMES = [
  'course_stage.completed',
  'course_stage.invalidated',
  'course_assignment.created',
  'course_assignment.completed',
  'course_assignment.overdue',
  'acknowledgement.overdue',
  'acknowledgement.requested',
  'acknowledgement.due_soon',
  'acknowledgement.overdue_escalated',
  'qualification_level.lapsing',
  'qualification_level.lapsed',
  'retraining.assigned',
  'acknowledgement.countersign_requested',
  'acknowledgement.countersigned',
  'acknowledgement.declined',
  'guide.released',
  'wiki.released',
  'approval.requested',
  'approval.signed',
  'approval.approved',
  'approval.rejected',
  'periodic_review.due',
  'work_log.finished',
  'quiz_session.submitted',
  'module_import.finished',
  'module_import.failed',
  'user.created',
] as const satisfies ReadonlyArray<Exclude<EventName, 'ping'>>;

/** Human titles used in the delivery envelope (`title`, `description`). */
export const EVENT_TITLES: Record<EventName, { title: string; description: string }> = {
  'course_stage.completed': { title: 'Course Stage Completed', description: 'A trainee completed a course stage.' },
  'course_stage.invalidated': {
    title: 'Course Stage Invalidated',
    description: "A manager invalidated a trainee's completion of a course stage.",
  },
  'course_assignment.created': {
    title: 'Course Assignment Created',
    description: 'A course was assigned to a user or a team.',
  },
  'course_assignment.completed': {
    title: 'Course Assignment Completed',
    description: 'A trainee completed every stage of an assigned course.',
  },
  'course_assignment.overdue': {
    title: 'Course Assignment Overdue',
    description: "A trainee's course assignment passed its due date unfinished.",
  },
  'acknowledgement.overdue': {
    title: 'Acknowledgement Overdue',
    description: 'A person has not acknowledged a release of a document they are trained on by its due date.',
  },
  'acknowledgement.requested': {
    title: 'Acknowledgement Requested',
    description: 'A person was asked to read and acknowledge a new release of a document.',
  },
  'acknowledgement.due_soon': {
    title: 'Acknowledgement Due Soon',
    description: "A person's acknowledgement of a release is due within the site's reminder lead.",
  },
  'acknowledgement.overdue_escalated': {
    title: 'Acknowledgement Overdue: Escalated',
    description:
      "An acknowledgement stayed overdue past the site's escalation delay; the person's team owners are told.",
  },
  'qualification_level.lapsing': {
    title: 'Qualification Level Lapsing',
    description: "A person's qualification level expires within the site's lead.",
  },
  'qualification_level.lapsed': {
    title: 'Qualification Level Lapsed',
    description: "A person's qualification level expired.",
  },
  'retraining.assigned': {
    title: 'Retraining Assigned',
    description: 'A course that restores a lapsed level was assigned to its former holder.',
  },
  'acknowledgement.countersign_requested': {
    title: 'Acknowledgement Awaits Countersignature',
    description: "A person signed an acknowledgement whose marked steps need a supervisor's countersignature.",
  },
  'acknowledgement.countersigned': {
    title: 'Acknowledgement Countersigned',
    description: "A qualified supervisor countersigned a person's acknowledgement.",
  },
  'acknowledgement.declined': {
    title: 'Acknowledgement Declined',
    description: "A person declined to sign an acknowledgement, with a comment for the document's owner.",
  },
  'guide.released': { title: 'Guide Released', description: 'A guide revision was released.' },
  'wiki.released': { title: 'Wiki Released', description: 'A wiki page revision was released.' },
  'approval.requested': { title: 'Approval Requested', description: 'An approval request was opened.' },
  'approval.signed': { title: 'Approval Signed', description: 'An approver signed an approval request.' },
  'approval.approved': { title: 'Approval Approved', description: 'An approval request was approved.' },
  'approval.rejected': { title: 'Approval Rejected', description: 'An approval request was rejected.' },
  'periodic_review.due': { title: 'Periodic Review Due', description: "A document's periodic review fell due." },
  'work_log.finished': { title: 'Work Log Finished', description: 'A work log entry was finished.' },
  'quiz_session.submitted': {
    title: 'Quiz Session Submitted',
    description: 'A quiz session was submitted and graded.',
  },
  'module_import.finished': {
    title: 'Module Import Finished',
    description: 'An external training module was imported.',
  },
  'module_import.failed': { title: 'Module Import Failed', description: 'An external training module import failed.' },
  'user.created': { title: 'User Created', description: 'A user account was created.' },
  ping: { title: 'Ping', description: 'A test delivery requested through POST /webhooks/{webhookid}/test.' },
};

/** An event about to be written: its name, payload and the entity whose order it keeps. */
export interface DomainEvent<N extends EventName = EventName> {
  name: N;
  /**
   * The entity the event is about, e.g. `USER#12`, `COMPLETION#12#guide#7`: events of one entity are delivered in
   * order.
   */
  entity: string;
  data: EventPayloads[N];
  /** Deliver to this webhook only (ping). */
  target_webhookid?: number;
}

export function domainEvent<N extends EventName>(
  name: N,
  entity: string,
  data: EventPayloads[N],
  extra: { target_webhookid?: number } = {},
): DomainEvent<N> {
  return { name, entity, data, ...extra };
}

export function isEventName(value: string): value is (typeof EVENT_NAMES)[number] {
  return (EVENT_NAMES as readonly string[]).includes(value);
}
