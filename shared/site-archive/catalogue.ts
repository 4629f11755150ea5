/**
 * What an import knows about the items of a site file: the entity names this version of
 * Stepwise writes (anything else is reported as an unknown type and refuses the import), and the
 * main links between items, checked for broken references before anything is written.
 */
import { commentKey } from '../db/entities/comment.ts';
import { guideKey } from '../db/entities/guide.ts';
import { teamKey } from '../db/entities/team.ts';
import { userKey } from '../db/entities/user.ts';
import { wikiKey } from '../db/entities/wiki.ts';

/** Every entity name a table item of this version can carry (the `entity` attribute or its key prefix). */
export const KNOWN_ENTITIES: ReadonlySet<string> = new Set([
  'ApiToken',
  'ApprovalAttachment',
  'ApprovalProcess',
  'ApprovalRequest',
  'ApprovedRevision',
  'AttemptCounter',
  'AuditHead',
  'AuditRecord',
  'AuthoredGuide',
  'Badge',
  'ChangeRequest',
  'Collection',
  'Cmi5Registration',
  'Cmi5Session',
  'Comment',
  'CommentReply',
  'Counter',
  'Course',
  'CourseAssignment',
  'CourseCoverage',
  'CourseEnrollment',
  'CreatedUser',
  'DocumentTag',
  'EmittedMarker',
  'FeaturedGuide',
  'GlossaryEntry',
  'Guide',
  'GuideRevision',
  'IdempotencyRecord',
  'LrsCredential',
  'MediaGuid',
  'MediaItem',
  'IdentityProvider',
  'ModuleAttempt',
  'ModuleImport',
  'ModuleUsage',
  'OpenApprovalRequest',
  'OutboxEvent',
  'PeriodicReview',
  'Quiz',
  'QuizCategory',
  'QuizLink',
  'QuizRevision',
  'QuizSession',
  'QuizSessionLink',
  'Release',
  'ReleaseHead',
  'ResetLink',
  'ReviewDocument',
  'ReviewSchedule',
  'SearchToken',
  'SignIntent',
  'SignoffFinalizeToken',
  'SignoffRequest',
  'SigningToken',
  'SortedRef',
  'SsoLoginState',
  'SsoReplay',
  'StepUp',
  'StepUpTicket',
  'StageAssessment',
  'StageCompletion',
  'Step',
  'StepForm',
  'StepFormField',
  'StepFormRevision',
  'StepRevision',
  'Team',
  'TeamAssignmentRef',
  'TeamMember',
  'Token',
  'TraineeSignoff',
  'XapiActivity',
  'XapiDocument',
  'XapiStatement',
  'XapiStatementIndex',
  'TrainingModule',
  'TrainingRow',
  'Unique',
  'User',
  'View',
  'Webhook',
  'WebhookDelivery',
  'WikiRevision',
  'Wiki',
  'WorkLogEntry',
  'WorkLogLink',
  'WorkLogValue',
  'FavoriteGuide',
  'CompletedGuide',
  'QuizProgress',
  'Tag',
  'QuizCount',
  'TrainingSummary',
  // docs/competency.md
  'Skill',
  'SkillGuide',
  'QualificationLevel',
  'Acknowledgement',
  'AcknowledgedVersion',
  'RetrainingMark',
  'TrainingSettings',
  'WorkLogQualification',
  'SkillRequirement',
  'ComprehensionQuiz',
  'AcknowledgementDecline',
  // docs/notices.md
  'NoticeDue',
  'NoticeSent',
  'NoticePreferences',
  'NoticeSettings',
]);

type Key = { pk: string; sk: string };
export type ReferenceTarget = 'user' | 'guide' | 'team' | 'wiki' | 'comment';

/** The key of the item a reference of each kind must find, in the file or in the target table. */
export const REFERENCE_TARGET_KEY: Record<ReferenceTarget, (id: number) => Key> = {
  user: userKey,
  guide: guideKey,
  team: teamKey,
  wiki: wikiKey,
  comment: commentKey,
};

/** The entity whose main item a target kind is (so the file's own items define targets). */
export const TARGET_ENTITY: Record<ReferenceTarget, string> = {
  user: 'User',
  guide: 'Guide',
  team: 'Team',
  wiki: 'Wiki',
  comment: 'Comment',
};

interface Reference {
  attribute: string;
  target: ReferenceTarget;
  /** Only items for which this holds carry the reference (e.g. a release of a guide). */
  when?: (item: Record<string, unknown>) => boolean;
}

const user = (attribute: string): Reference => ({ attribute, target: 'user' });

/** The main links, by the referring item's entity. */
export const REFERENCES: Record<string, Reference[]> = {
  Guide: [user('userid')],
  Step: [{ attribute: 'guideid', target: 'guide' }],
  TeamMember: [{ attribute: 'teamid', target: 'team' }, user('userid')],
  Comment: [user('author_userid')],
  CommentReply: [{ attribute: 'commentid', target: 'comment' }],
  Release: [
    { attribute: 'docid', target: 'guide', when: (item) => item.doctype === 'guide' },
    { attribute: 'docid', target: 'wiki', when: (item) => item.doctype === 'wiki' },
  ],
  Token: [user('userid')],
  MediaItem: [user('userid')],
  WorkLogEntry: [user('userid'), { attribute: 'guideid', target: 'guide' }],
  QuizSession: [user('userid')],
  DocumentTag: [user('userid')],
  CourseAssignment: [{ attribute: 'wikiid', target: 'wiki' }],
  Collection: [user('created_by')],
  SkillRequirement: [{ attribute: 'teamid', target: 'team', when: (item) => item.scope === 'team' }],
  AcknowledgementDecline: [user('userid')],
  NoticePreferences: [user('userid')],
  NoticeDue: [user('userid')],
};

/** The references a plain item carries: target kind and id (ids of 0 or less name nothing). */
export function referencesOf(
  entity: string,
  item: Record<string, unknown>,
): Array<{ target: ReferenceTarget; id: number }> {
  const found: Array<{ target: ReferenceTarget; id: number }> = [];
  for (const reference of REFERENCES[entity] ?? []) {
    if (reference.when && !reference.when(item)) continue;
    const value = item[reference.attribute];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0)
      found.push({ target: reference.target, id: value });
  }
  return found;
}

/** The id a main item defines for reference checks (a User defines user <userid>...). */
export function definedTarget(
  entity: string,
  item: Record<string, unknown>,
): { target: ReferenceTarget; id: number } | undefined {
  for (const [target, name] of Object.entries(TARGET_ENTITY) as Array<[ReferenceTarget, string]>) {
    if (name !== entity) continue;
    const key = REFERENCE_TARGET_KEY[target];
    const idText = String(item.pk ?? '').split('#')[1];
    const id = Number(idText);
    if (Number.isInteger(id) && id > 0 && key(id).pk === item.pk && key(id).sk === item.sk) return { target, id };
  }
  return undefined;
}

/** Counter items never travel verbatim: the importer moves each target counter past the file's. */
export function counterTypeOf(item: Record<string, unknown>): string | undefined {
  const pk = String(item.pk ?? '');
  return pk.startsWith('COUNTER#') ? pk.slice('COUNTER#'.length) : undefined;
}

/**
 * Entities whose ids come from a counter: the importer moves the counter past the highest id it
 * wrote, as the item's KEY names it (identity.ts; the attribute only where the key holds no id).
 */
export const ID_COUNTERS: Record<string, { counter: string; attribute: string }> = {
  User: { counter: 'user', attribute: 'userid' },
  Guide: { counter: 'guide', attribute: 'guideid' },
  Step: { counter: 'step', attribute: 'stepid' },
  Team: { counter: 'team', attribute: 'teamid' },
  Wiki: { counter: 'wiki', attribute: 'wikiid' },
  Comment: { counter: 'comment', attribute: 'commentid' },
  MediaItem: { counter: 'media', attribute: 'itemid' },
  Release: { counter: 'release', attribute: 'releaseid' },
  Quiz: { counter: 'quiz', attribute: 'quizid' },
  QuizSession: { counter: 'quiz_session', attribute: 'quiz_sessionid' },
  WorkLogEntry: { counter: 'work_log_entry', attribute: 'entryid' },
  CourseAssignment: { counter: 'course_assignment', attribute: 'course_assignmentid' },
  ApprovalRequest: { counter: 'approval_request', attribute: 'approval_requestid' },
  Webhook: { counter: 'webhook', attribute: 'webhookid' },
  Collection: { counter: 'collection', attribute: 'collectionid' },
  GuideRevision: { counter: 'revision', attribute: 'revisionid' },
  StepRevision: { counter: 'revision', attribute: 'revisionid' },
  WikiRevision: { counter: 'revision', attribute: 'revisionid' },
  Course: { counter: 'wiki', attribute: 'wikiid' },
  StageAssessment: { counter: 'stage_assessment', attribute: 'stage_assessmentid' },
  StageCompletion: { counter: 'stage_completion', attribute: 'course_assignment_stage_completionid' },
  SignoffRequest: { counter: 'signoff_request', attribute: 'signoff_requestid' },
  Skill: { counter: 'skill', attribute: 'skillid' },
  GlossaryEntry: { counter: 'glossary', attribute: 'entryid' },
  ApprovalProcess: { counter: 'approval_process', attribute: 'approval_processid' },
  PeriodicReview: { counter: 'periodic_review', attribute: 'reviewid' },
  ChangeRequest: { counter: 'change_request', attribute: 'change_requestid' },
  ReviewSchedule: { counter: 'periodic_review_schedule', attribute: 'prsid' },
  ReviewDocument: { counter: 'periodic_review_document', attribute: 'prdid' },
  TrainingModule: { counter: 'module', attribute: 'moduleid' },
  ModuleImport: { counter: 'module-import', attribute: 'importid' },
  StepFormRevision: { counter: 'form_revision', attribute: 'form_revisionid' },
  StepFormField: { counter: 'form_field_revision', attribute: 'field_revisionid' },
};

/**
 * What a site's first Admin leaves in an otherwise empty table: the account and the items that
 * come with any account (uniqueness, search, sorted lists, its audit chain). An `empty` import
 * accepts a target holding these (and items identical to the file's), and replaces them.
 */
export const FIRST_ADMIN_FOOTPRINT: ReadonlySet<string> = new Set([
  'User',
  'Unique',
  'SearchToken',
  'SortedRef',
  'CreatedUser',
  'AuditRecord',
  'AuditHead',
  'EmittedMarker',
]);

/** Target items an import neither compares nor clears: id counters and the live tokens. */
export const LEFT_IN_PLACE: ReadonlySet<string> = new Set(['Counter', 'Token']);
