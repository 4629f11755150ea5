/**
 * Entities declared once (first step): for every kind of item the table holds, the shape of its
 * key (pk / sk, as the entity files' key builders spell it) and the schema of the item as its
 * write builder writes it. An item's entity is decided here from its KEY, never from its own
 * `entity` attribute, which whoever wrote the item chose (a site file, decision 164).
 *
 * Order matters only where two shapes share a partition (USER#<id> holds a user and its badges,
 * marks, completions...): each sort-key shape is distinct, so the first match is the only one.
 * Every entity has its schema, declared in its entity file next to the writes it describes (the
 * table-wide helpers' items below). Strict: an attribute the writes never set is refused, and
 * every attribute has the type the document client returns (numbers, strings, lists, maps, sets).
 * LOOSE lists the few typed on the attributes services rely on, with the rest left open, and why;
 * test/unit/entity-schemas.test.ts holds the list to exactly these (decision 200).
 */
import {
  acknowledgementDeclineItemSchema,
  comprehensionQuizItemSchema,
} from './entities/acknowledgement-comprehension.ts';
import { skillRequirementItemSchema } from './entities/skill-requirement.ts';
import * as z from 'zod/mini';
import { schemaProblem } from './stored-item.ts';
import { auditHeadItemSchema, auditRecordItemSchema } from './audit.ts';
import { commentItemSchema, commentReplyItemSchema } from './entities/comment.ts';
import { teamAssignmentRefItemSchema } from './entities/course-assignment-index.ts';
import { courseItemSchema, stageAssessmentItemSchema } from './entities/course.ts';
import { guideItemSchema } from './entities/guide.ts';
import { stepItemSchema, stepRevisionItemSchema } from './entities/step.ts';
import { guideRevisionItemSchema } from './entities/guide-revision.ts';
import { authoredGuideItemSchema, featuredGuideItemSchema } from './entities/guide-link.ts';
import { teamItemSchema, teamMemberItemSchema } from './entities/team.ts';
import {
  noticeDueItemSchema,
  noticePreferencesItemSchema,
  noticeSentItemSchema,
  noticeSettingsItemSchema,
} from './entities/notice.ts';
import { wikiItemSchema, wikiRevisionItemSchema } from './entities/wiki.ts';
import { glossaryEntryItemSchema } from './entities/glossary.ts';
import { mediaGuidItemSchema, mediaItemItemSchema } from './entities/media-item.ts';
import {
  quizCategoryItemSchema,
  quizCountItemSchema,
  quizItemSchema,
  quizLinkItemSchema,
  quizRevisionItemSchema,
} from './entities/quiz.ts';
import { quizProgressItemSchema, quizSessionItemSchema, quizSessionLinkItemSchema } from './entities/quiz-session.ts';
import { releaseHeadItemSchema, storedReleaseSchema } from './entities/release.ts';
import { searchGenerationItemSchema } from './entities/search-generation.ts';
import { searchIndexHeadItemSchema } from './entities/search-index-head.ts';
import { documentTagItemSchema, tagItemSchema } from './entities/tag.ts';
import { approvalAttachmentItemSchema, approvalProcessItemSchema } from './entities/approval-process.ts';
import {
  approvalRequestItemSchema,
  approvedRevisionItemSchema,
  openApprovalRequestItemSchema,
} from './entities/approval-request.ts';
import { moduleImportItemSchema } from './entities/module-import.ts';
import { moduleAttemptItemSchema } from './entities/module-attempt.ts';
import { moduleUsageItemSchema } from './entities/module-usage.ts';
import { changeRequestItemSchema, periodicReviewItemSchema } from './entities/periodic-review.ts';
import { reviewDocumentItemSchema, reviewScheduleItemSchema } from './entities/review-schedule.ts';
import {
  signoffFinalizeTokenItemSchema,
  signoffRequestItemSchema,
  traineeSignoffItemSchema,
} from './entities/signoff.ts';
import { trainingModuleItemSchema } from './entities/training-module.ts';
import { completedGuideItemSchema, favoriteGuideItemSchema } from './entities/guide-mark.ts';
import { courseEnrollmentItemSchema } from './entities/course-enrollment.ts';
import { stageCompletionItemSchema } from './entities/training-record.ts';
import { courseCoverageItemSchema, trainingRowItemSchema, trainingSummaryItemSchema } from './entities/training-row.ts';
import { attemptCounterItemSchema } from './entities/attempt-counter.ts';
import { courseAssignmentItemSchema } from './entities/course-assignment.ts';
import { emittedMarkerItemSchema, outboxEventItemSchema } from './entities/outbox.ts';
import { siteExportItemSchema, siteImportItemSchema } from './entities/site-transfer-job.ts';
import { stepFormFieldItemSchema, stepFormItemSchema, stepFormRevisionItemSchema } from './entities/step-form.ts';
import { viewItemSchema } from './entities/view-history.ts';
import { workLogEntryItemSchema, workLogLinkItemSchema, workLogValueItemSchema } from './entities/work-log.ts';
import { badgeItemSchema } from './entities/badge.ts';
import { resetLinkItemSchema } from './entities/reset-link.ts';
import { signingTokenItemSchema } from './entities/signing-token.ts';
import { tokenItemSchema } from './entities/token.ts';
import { apiTokenItemSchema } from './entities/api-token.ts';
import { lrsCredentialItemSchema } from './entities/lrs-credential.ts';
import { activityItemSchema, statementIndexItemSchema, statementItemSchema } from './entities/xapi-statement.ts';
import { documentItemSchema } from './entities/xapi-document.ts';
import { cmi5RegistrationItemSchema } from './entities/cmi5-registration.ts';
import { cmi5SessionItemSchema } from './entities/cmi5-session.ts';
import { createdUserItemSchema, userItemSchema } from './entities/user.ts';
import { webhookDeliveryItemSchema, webhookItemSchema } from './entities/webhook.ts';
import { idempotencyRecordItemSchema } from './entities/idempotency-record.ts';
import { signIntentItemSchema } from './entities/sign-intent.ts';
import { skillGuideItemSchema, skillItemSchema } from './entities/skill.ts';
import { collectionItemSchema } from './entities/collection.ts';
import { qualificationLevelItemSchema } from './entities/qualification-level.ts';
import {
  acknowledgedVersionItemSchema,
  acknowledgementItemSchema,
  retrainingMarkItemSchema,
  countersignStepsItemSchema,
} from './entities/acknowledgement.ts';
import { trainingSettingsItemSchema } from './entities/training-settings.ts';
import { workLogQualificationItemSchema } from './entities/work-log-qualification.ts';
import {
  identityProviderItemSchema,
  ssoLoginStateItemSchema,
  ssoReplayItemSchema,
  stepUpItemSchema,
  stepUpTicketItemSchema,
} from './entities/identity-provider.ts';

/** A plain (unmarshalled) item checker. */
export type ItemSchema = z.ZodMiniType<unknown, Record<string, unknown>>;

export interface EntityShape {
  entity: string;
  pk: RegExp;
  sk: RegExp;
  schema: ItemSchema;
  /** Exact: the schema lists every attribute the entity file writes, strictly (false: typed, others open; LOOSE). */
  exact: boolean;
  /** A credential: whoever holds its secret acts as `owner` (the attributes naming that account). */
  credentialOwner?: readonly string[];
}

const ID = String.raw`[1-9]\d*`;
const PAD = String.raw`\d{12}`;
const HEX = '[0-9a-f]{64}';
/** One key segment: anything but `#` and control characters (ids of documents, tags, values). */
const SEGMENT = '[^#\\u0000-\\u001f]+';
/** Free text that may itself hold `#` (a unique wiki title `WIKI#Torque table`), no control characters. */
const TEXT = '[^\\u0000-\\u001f]+';
/** A document type as keys spell it (`guide`, `GUIDE`, `wiki`...). */
const DOCTYPE = '[A-Za-z_]+';
const anchored = (source: string) => new RegExp(`^${source}$`);

/*
 * Items written by the table-wide helpers of shared/db (counters.ts, uniqueness.ts,
 * search-index.ts, sorted-refs.ts): declared here, next to their key shapes. audit.ts reads its
 * chains through its schemas, so it declares them itself (decision 206).
 */
const positiveId = z.int().check(z.positive());

/** counters.ts: the next id of a type (ADD / SET `value`; no `entity`). */
const counterItemSchema = z.strictObject({ pk: z.string(), sk: z.literal('COUNTER'), value: z.int() });

/** uniqueness.ts: a claimed value and the one id that holds it (which id depends on the kind). */
const uniqueItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('UNIQUE'),
  entity: z.literal('Unique'),
  kind: z.string(),
  userid: z.optional(positiveId),
  wikiid: z.optional(positiveId),
  entryid: z.optional(positiveId),
  course_assignmentid: z.optional(positiveId),
  prdid: z.optional(positiveId),
  prsid: z.optional(positiveId),
  /** CLIENT_GUID claims (client-guid.ts): the record's id and the fingerprint of its create. */
  client_ref: z.optional(z.string()),
  fingerprint: z.optional(z.string()),
});

/** search-index.ts: one word of a record (the record's id; the word is in the key). */
const searchTokenItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('SearchToken'),
  id: positiveId,
});

/**
 * sorted-refs.ts: a reference in one list order, carrying its record's filter attributes
 * (their names differ per collection: loose, the record id's shape is in the key).
 */
const sortedRefItemSchema = z.looseObject({ pk: z.string(), sk: z.string(), entity: z.literal('SortedRef') });

type ShapeInput = [entity: string, pk: string, sk: string, schema: ItemSchema, credentialOwner?: readonly string[]];

/**
 * Typed but open (not exact): sorted references carry their collection's filter attributes,
 * whose names differ per collection; export and import job items never travel in a site file
 * and carry reports and cursors only their own service reads.
 */
const LOOSE: ReadonlySet<string> = new Set(['SortedRef', 'SiteExport', 'SiteImport']);

const SHAPES: ShapeInput[] = [
  // user.ts, badge.ts, guide-link.ts, guide-mark.ts, course-enrollment.ts, training-row.ts, ...: USER#<id>
  ['User', `USER#${ID}`, 'USER', userItemSchema],
  ['CreatedUser', `USER#${ID}`, `CREATED#${PAD}`, createdUserItemSchema],
  ['Badge', `USER#${ID}`, `BADGE#${SEGMENT}`, badgeItemSchema],
  ['AuthoredGuide', `USER#${ID}`, `AUTHORED#GUIDE#${PAD}`, authoredGuideItemSchema],
  ['FavoriteGuide', `USER#${ID}`, `FAVORITE#GUIDE#${PAD}`, favoriteGuideItemSchema],
  ['CompletedGuide', `USER#${ID}`, `COMPLETED#GUIDE#${PAD}`, completedGuideItemSchema],
  ['CourseEnrollment', `USER#${ID}`, `ENROLLED#COURSE#${PAD}`, courseEnrollmentItemSchema],
  ['CourseCoverage', `USER#${ID}`, `COVERAGE#COURSE#${PAD}`, courseCoverageItemSchema],
  ['StageCompletion', `USER#${ID}`, `TRAINDOC#${DOCTYPE}#${PAD}`, stageCompletionItemSchema],
  ['TraineeSignoff', `USER#${ID}`, `SIGNOFF#${PAD}`, traineeSignoffItemSchema],
  ['QuizProgress', `USER#${ID}`, `QUIZSTATE#${PAD}`, quizProgressItemSchema],
  ['SignIntent', `USER#${ID}`, 'SIGNINTENT#[0-9a-f-]{36}', signIntentItemSchema],
  ['QualificationLevel', `USER#${ID}`, `LEVEL#${PAD}`, qualificationLevelItemSchema],
  ['AcknowledgedVersion', `USER#${ID}`, `ACKED#(guide|wiki)#${PAD}`, acknowledgedVersionItemSchema],
  ['TrainingSummary', `(USER|TEAM)#${ID}`, 'TRAINSUMMARY', trainingSummaryItemSchema],
  // credentials: token.ts, reset-link.ts, signing-token.ts, signoff.ts
  ['Token', `TOKEN#${HEX}`, 'TOKEN', tokenItemSchema, ['userid']],
  // api-token.ts: a site's service principal (no account; never travels, docs/export-format.md)
  ['ApiToken', 'APITOKEN#[0-9a-f]{16}', 'APITOKEN', apiTokenItemSchema],
  // lrs-credential.ts: the LRS's HTTP Basic credentials (never travel, docs/export-format.md)
  ['LrsCredential', 'LRSKEY#[0-9a-f]{20}', 'LRSKEY', lrsCredentialItemSchema],
  // xapi-statement.ts, xapi-document.ts: the site's own LRS (docs/lrs.md)
  ['XapiStatement', 'XSTMT#[0-9a-f-]{36}', 'STMT', statementItemSchema],
  [
    'XapiStatementIndex',
    'XIDX#(ALL|[A-Z]+#[0-9a-f]{64})',
    String.raw`\d{15}#\d{3}#[0-9a-f-]{36}`,
    statementIndexItemSchema,
  ],
  ['XapiActivity', 'XACT#[0-9a-f]{64}', 'ACTIVITY', activityItemSchema],
  // cmi5-registration.ts, cmi5-session.ts: cmi5 launch (docs/lrs.md; sessions never travel)
  ['Cmi5Registration', 'CMI5REG#[0-9a-f-]{36}', 'CMI5REG', cmi5RegistrationItemSchema],
  ['Cmi5Session', 'CMI5SES#[0-9a-f-]{36}', 'CMI5SES', cmi5SessionItemSchema],
  [
    'XapiDocument',
    'XDOC#(STATE|ACTPROFILE|AGENTPROFILE)#[0-9a-f]{64}',
    '(-|[0-9a-f]{64})#[0-9a-f]{64}',
    documentItemSchema,
  ],
  ['ResetLink', `RESET#${HEX}`, 'RESET', resetLinkItemSchema, ['userid']],
  ['SigningToken', `SIGNING_TOKEN#${HEX}`, 'SIGNING_TOKEN', signingTokenItemSchema, ['userid', 'issued_to_userid']],
  [
    'SignoffFinalizeToken',
    `SIGNOFFTOKEN#${HEX}`,
    'TOKEN',
    signoffFinalizeTokenItemSchema,
    ['caller_userid', 'signer_userid'],
  ],
  ['AttemptCounter', `ATTEMPTS#${SEGMENT}(#${SEGMENT})*`, 'ATTEMPTS', attemptCounterItemSchema],
  // counters.ts, outbox.ts, quiz.ts
  ['Counter', `COUNTER#[a-z_-]+`, 'COUNTER', counterItemSchema],
  ['OutboxEvent', `OUTBOX#${SEGMENT}(#${SEGMENT})*`, `EVT#${SEGMENT}(#${SEGMENT})*`, outboxEventItemSchema],
  ['EmittedMarker', `EMITTED#${SEGMENT}(#${SEGMENT})*`, 'EMITTED', emittedMarkerItemSchema],
  ['QuizCount', 'QUIZCOUNT', 'COUNT', quizCountItemSchema],
  ['QuizCategory', 'QUIZCATEGORIES', SEGMENT, quizCategoryItemSchema],
  ['Quiz', `QUIZ#${ID}`, 'QUIZ', quizItemSchema],
  ['QuizRevision', `QUIZ#${ID}`, `REV#${PAD}`, quizRevisionItemSchema],
  ['QuizLink', `QUIZLINK#${DOCTYPE}#${ID}`, `REV#${PAD}`, quizLinkItemSchema],
  ['QuizSession', `QUIZSESSION#${ID}`, 'SESSION', quizSessionItemSchema],
  ['QuizSessionLink', `QUIZSESSIONS#QUIZ#${ID}`, PAD, quizSessionLinkItemSchema],
  // guide.ts, guide-revision.ts, step.ts, guide-link.ts
  ['Guide', `GUIDE#${ID}`, 'GUIDE', guideItemSchema],
  ['GuideRevision', `GUIDE#${ID}`, `REV#${PAD}`, guideRevisionItemSchema],
  ['Step', `STEP#${ID}`, 'STEP', stepItemSchema],
  ['StepRevision', `STEP#${ID}`, `REV#${PAD}`, stepRevisionItemSchema],
  ['FeaturedGuide', 'FEATURED#GUIDE', PAD, featuredGuideItemSchema],
  // wiki.ts, course.ts
  ['Wiki', `WIKI#${ID}`, 'WIKI', wikiItemSchema],
  ['WikiRevision', `WIKI#${ID}`, `REV#${PAD}`, wikiRevisionItemSchema],
  ['Course', `WIKI#${ID}`, 'COURSE', courseItemSchema],
  ['StageAssessment', `ASSESSMENT#${ID}`, 'ASSESSMENT', stageAssessmentItemSchema],
  // team.ts, course-assignment-index.ts
  ['Team', `TEAM#${ID}`, 'TEAM', teamItemSchema],
  ['TeamMember', `TEAM#${ID}`, `MEMBER#${PAD}`, teamMemberItemSchema],
  // skill-requirement.ts: a team's or a role's required skills (docs/competency.md)
  ['SkillRequirement', `(TEAM#${ID}|ROLEREQ#(Admin|Author|User))`, `REQUIRES#${PAD}`, skillRequirementItemSchema],
  ['TeamAssignmentRef', `TEAM#${ID}`, `ASSIGNMENT#${PAD}`, teamAssignmentRefItemSchema],
  // comment.ts
  ['Comment', `COMMENT#${ID}`, 'COMMENT', commentItemSchema],
  ['CommentReply', `COMMENT#${ID}`, `REPLY#${PAD}`, commentReplyItemSchema],
  // media-item.ts, module-import.ts, training-module.ts, module-usage.ts
  ['MediaItem', `MEDIA#${ID}`, 'MEDIA', mediaItemItemSchema],
  ['MediaGuid', `MEDIAGUID#${SEGMENT}`, 'MEDIAGUID', mediaGuidItemSchema],
  ['ModuleImport', `IMPORT#${ID}`, 'IMPORT', moduleImportItemSchema],
  ['TrainingModule', `MODULE#${ID}`, 'MODULE', trainingModuleItemSchema],
  ['ModuleUsage', `MODULE#${ID}`, `USAGE#COURSE#${PAD}`, moduleUsageItemSchema],
  // module-attempt.ts (decision 271)
  ['ModuleAttempt', `ATTEMPTS#MODULE#${ID}#USER#${ID}`, `ATTEMPT#${PAD}`, moduleAttemptItemSchema],
  // release.ts, tag.ts
  ['Release', `RELEASE#${ID}`, 'RELEASE', storedReleaseSchema],
  ['ReleaseHead', `RELEASEHEAD#${DOCTYPE}#${ID}`, 'HEAD', releaseHeadItemSchema],
  // search-index-head.ts: derived data, never in a site file
  ['SearchIndexHead', 'SEARCH_INDEX', 'HEAD', searchIndexHeadItemSchema],
  // search-generation.ts: derived data, never in a site file (decision 329)
  ['SearchGeneration', 'SEARCH_INDEX', 'OPENSEARCH', searchGenerationItemSchema],
  ['Tag', `TAG#${SEGMENT}`, 'TAG', tagItemSchema],
  ['DocumentTag', `TAGGED#${DOCTYPE}#${ID}`, `TAG#${SEGMENT}`, documentTagItemSchema],
  // uniqueness.ts, search-index.ts, sorted-refs.ts, audit.ts
  ['Unique', `UNIQUE#[A-Z_]+#${TEXT}`, 'UNIQUE', uniqueItemSchema],
  ['SearchToken', 'SEARCH#[A-Z_]+', `${SEGMENT}#${PAD}`, searchTokenItemSchema],
  ['SortedRef', `[A-Z_]+(#[A-Z0-9_]+)*#BY#${SEGMENT}`, `${SEGMENT}(#${SEGMENT})*`, sortedRefItemSchema],
  ['AuditRecord', `AUDIT#${SEGMENT}(#${SEGMENT})*`, `SEQ#${PAD}`, auditRecordItemSchema],
  ['AuditHead', `AUDIT#${SEGMENT}(#${SEGMENT})*`, 'HEAD', auditHeadItemSchema],
  // view-history.ts, work-log.ts, glossary.ts
  ['View', `VIEWS#USER#${ID}`, `${PAD}#${DOCTYPE}#${PAD}`, viewItemSchema],
  ['WorkLogEntry', `WORKLOG#${ID}`, 'ENTRY', workLogEntryItemSchema],
  ['WorkLogValue', `WORKLOG#${ID}`, `DATA#${PAD}`, workLogValueItemSchema],
  ['WorkLogQualification', `WORKLOG#${ID}`, 'QUALIFICATION', workLogQualificationItemSchema],
  // skill.ts, acknowledgement.ts, training-settings.ts (docs/competency.md)
  ['Skill', `SKILL#${ID}`, 'SKILL', skillItemSchema],
  ['SkillGuide', `SKILL#${ID}`, `GUIDE#${PAD}`, skillGuideItemSchema],
  ['Acknowledgement', `ACK#${ID}`, `USER#${PAD}`, acknowledgementItemSchema],
  ['RetrainingMark', `RETRAIN#(guide|wiki)#${ID}`, 'MARK', retrainingMarkItemSchema],
  ['CountersignSteps', `ACKCS#${ID}`, 'STEPS', countersignStepsItemSchema],
  // acknowledgement-comprehension.ts: a release's comprehension quiz, a person's declines
  ['ComprehensionQuiz', `ACKQUIZ#${ID}`, 'QUIZ', comprehensionQuizItemSchema],
  [
    'AcknowledgementDecline',
    `ACKDECLINE#${ID}#${ID}`,
    `DECLINE#${PAD}#[0-9a-f-]{36}`,
    acknowledgementDeclineItemSchema,
  ],
  ['TrainingSettings', `TRAINSET#(SITE|GUIDE#${ID}|WIKI#${ID})`, 'SETTINGS', trainingSettingsItemSchema],
  // notice.ts (docs/notices.md)
  ['NoticeDue', 'NOTICEDUE#[0-7]', `${PAD}#${SEGMENT}(#${SEGMENT})*`, noticeDueItemSchema],
  ['NoticeSent', `NOTICESENT#${SEGMENT}(#${SEGMENT})*`, 'SENT', noticeSentItemSchema],
  ['NoticePreferences', `NOTICEPREF#${ID}`, 'PREFS', noticePreferencesItemSchema],
  ['NoticeSettings', 'NOTICESET#SITE', 'SETTINGS', noticeSettingsItemSchema],
  ['WorkLogLink', `WORKLOGS(#G${ID})?(#U${ID})?(#W${SEGMENT})?`, PAD, workLogLinkItemSchema],
  ['GlossaryEntry', `GLOSSARY#${ID}`, 'ENTRY', glossaryEntryItemSchema],
  // collection.ts (decision 281)
  ['Collection', `COLLECTION#${ID}`, 'COLLECTION', collectionItemSchema],
  // webhook.ts
  ['Webhook', `WEBHOOK#${ID}`, 'WEBHOOK', webhookItemSchema],
  // Deliveries of xAPI statements go to webhook 0 (shared/events/deliverer.ts, XAPI_TARGET).
  ['WebhookDelivery', `WEBHOOK#(0|${ID})`, `DELIVERY#${SEGMENT}(#${SEGMENT})*`, webhookDeliveryItemSchema],
  // approval-process.ts, approval-request.ts
  ['ApprovalProcess', `APPROVAL_PROCESS#${ID}`, 'PROCESS', approvalProcessItemSchema],
  ['ApprovalAttachment', `APPROVAL_ATTACHMENT#WIKI#${ID}`, 'ATTACHMENT', approvalAttachmentItemSchema],
  ['ApprovalRequest', `APPROVAL_REQUEST#${ID}`, 'REQUEST', approvalRequestItemSchema],
  ['OpenApprovalRequest', `APPROVAL_OPEN#${DOCTYPE}#${ID}`, 'OPEN', openApprovalRequestItemSchema],
  ['ApprovedRevision', `APPROVAL_APPROVED#${DOCTYPE}#${ID}`, `REV#${PAD}`, approvedRevisionItemSchema],
  // periodic-review.ts, review-schedule.ts, signoff.ts
  ['PeriodicReview', `PR_REVIEW#${ID}`, 'REVIEW', periodicReviewItemSchema],
  ['ChangeRequest', `PR_CHANGE#${ID}`, 'CHANGE_REQUEST', changeRequestItemSchema],
  ['ReviewSchedule', `PR_SCHEDULE#${ID}`, 'SCHEDULE', reviewScheduleItemSchema],
  ['ReviewDocument', `PR_DOCUMENT#${ID}`, 'DOCUMENT', reviewDocumentItemSchema],
  ['SignoffRequest', `SIGNOFF#${ID}`, 'SIGNOFF', signoffRequestItemSchema],
  // course-assignment.ts, training-row.ts
  ['CourseAssignment', `ASSIGNMENT#${ID}`, 'ASSIGNMENT', courseAssignmentItemSchema],
  ['TrainingRow', `ASSIGNMENT#${ID}`, `ROW#${PAD}`, trainingRowItemSchema],
  // step-form.ts
  ['StepForm', `STEPFORMS#GUIDE#${ID}`, `STEP#${PAD}`, stepFormItemSchema],
  ['StepFormRevision', `FORMREV#${ID}`, 'FORM', stepFormRevisionItemSchema],
  ['StepFormField', `FIELDREV#${ID}`, 'FIELD', stepFormFieldItemSchema],
  // idempotency-record.ts: Powertools' items (never travel); sk is `request#` + a base64 sha256
  [
    'IdempotencyRecord',
    `IDEMPOTENCY#(?:${ID}|token-[0-9a-f]{16})`,
    'request#[A-Za-z0-9+/=]+',
    idempotencyRecordItemSchema,
  ],
  // site-transfer-job.ts (never travel)
  ['SiteExport', `SITE_EXPORT#${ID}`, 'JOB', siteExportItemSchema],
  ['SiteImport', `SITE_IMPORT#${ID}`, 'JOB', siteImportItemSchema],
  // identity-provider.ts (company sign-in)
  ['IdentityProvider', `IDP#[a-z0-9_-]{1,40}`, 'IDP', identityProviderItemSchema],
  ['SsoReplay', `SSOREPLAY#[a-z_]+#${SEGMENT}`, 'SSOREPLAY', ssoReplayItemSchema],
  ['SsoLoginState', `SSOSTATE#${HEX}`, 'SSOSTATE', ssoLoginStateItemSchema],
  ['StepUp', `STEPUP#${ID}`, 'STEPUP', stepUpItemSchema],
  ['StepUpTicket', `STEPUPTICKET#${HEX}`, 'STEPUPTICKET', stepUpTicketItemSchema, ['userid']],
];

export const ENTITY_SHAPES: readonly EntityShape[] = SHAPES.map(([entity, pk, sk, schema, credentialOwner]) => ({
  entity,
  pk: anchored(pk),
  sk: anchored(sk),
  schema,
  exact: !LOOSE.has(entity),
  ...(credentialOwner ? { credentialOwner } : {}),
}));

const BY_ENTITY = new Map(ENTITY_SHAPES.map((shape) => [shape.entity, shape]));

/** The entity an item's key says it is, or undefined for a key shape this version never writes. */
export function entityOfKey(pk: string, sk: string): EntityShape | undefined {
  return ENTITY_SHAPES.find((shape) => shape.pk.test(pk) && shape.sk.test(sk));
}

export function entityShape(entity: string): EntityShape | undefined {
  return BY_ENTITY.get(entity);
}

/** Entities whose items are credentials: holding their secret acts as an account. */
export const CREDENTIAL_ENTITIES: ReadonlySet<string> = new Set(
  ENTITY_SHAPES.filter((shape) => shape.credentialOwner).map((shape) => shape.entity),
);

/**
 * The first problem of a plain item against its entity's schema, naming the field and what was
 * wrong ("username: expected string, got number"), or undefined.
 */
export function itemProblem(shape: EntityShape, plain: Record<string, unknown>): string | undefined {
  const parsed = shape.schema.safeParse(plain);
  return parsed.success ? undefined : (schemaProblem(parsed.error.issues, plain) ?? 'item: invalid');
}

/** DynamoDB's item limit (names and values, UTF-8). */
export const MAX_ITEM_BYTES = 400 * 1024;

/**
 * An item's size as DynamoDB counts it, from its AttributeValue map (attribute names plus values:
 * strings and binaries by their bytes, numbers by about half their digits, containers 3 bytes
 * plus 1 per element). Close enough to refuse what DynamoDB would refuse, never a valid item.
 */
export function itemBytes(item: Record<string, unknown>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) total += Buffer.byteLength(name) + valueBytes(value);
  return total;
}

function valueBytes(value: unknown): number {
  if (!value || typeof value !== 'object') return 0;
  const [type, inner] = Object.entries(value as Record<string, unknown>)[0] ?? [];
  switch (type) {
    case 'S':
      return Buffer.byteLength(String(inner));
    case 'N':
      return Math.ceil(String(inner).replace(/^-|[.eE].*$/g, '').length / 2) + 1;
    case 'B':
      return typeof inner === 'string' ? Buffer.from(inner, 'base64').length : ((inner as Uint8Array)?.length ?? 0);
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
    case 'NS':
    case 'BS':
      return (inner as unknown[]).reduce<number>(
        (sum, element) => sum + valueBytes({ [type.slice(0, 1)]: element }),
        0,
      );
    case 'L':
      return 3 + (inner as unknown[]).reduce<number>((sum, element) => sum + 1 + valueBytes(element), 0);
    case 'M':
      return 3 + itemBytes(inner as Record<string, unknown>) + Object.keys(inner as object).length;
    default:
      return 0;
  }
}
