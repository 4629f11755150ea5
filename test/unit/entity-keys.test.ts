/**
 * Every key shape, checked against its builder (issue 36). Each entity the registry knows
 * (shared/db/entity-schemas.ts, ENTITY_SHAPES) has here a key as its entity file's own builder
 * spells it, with the attributes its item holds: the key must be that entity's registered shape
 * (and no earlier shape's), and, for a travelling entity, agree with its identity template
 * (shared/site-archive/identity.ts, KEY_TEMPLATES), which must read each attribute it names. The
 * entity list comes from the registries: a new entity without a sample here fails the first test.
 */
import { describe, expect, it } from 'vitest';
import { ENTITY_SHAPES, entityOfKey } from '../../shared/db/entity-schemas.ts';
import {
  identityProblem,
  KEY_ONLY_ENTITIES,
  KEY_TEMPLATES,
  templateAttributes,
} from '../../shared/site-archive/identity.ts';
import { padId } from '../../shared/db/keys.ts';
import type { LabelledWrite } from '../../shared/db/transactions.ts';
import { chainKey } from '../../shared/db/audit.ts';
import { counterKey } from '../../shared/db/counters.ts';
import { searchKey } from '../../shared/db/search-index.ts';
import { refKey } from '../../shared/db/sorted-refs.ts';
import { uniqueKey } from '../../shared/db/uniqueness.ts';
import { quizKey as ackQuizKey, declinePut } from '../../shared/db/entities/acknowledgement-comprehension.ts';
import { ackedKey, ackKey, countersignKey, markKey as retrainKey } from '../../shared/db/entities/acknowledgement.ts';
import { apiTokenKey } from '../../shared/db/entities/api-token.ts';
import { attachmentKey, processKey } from '../../shared/db/entities/approval-process.ts';
import { approvedKey, openKey, requestKey as approvalRequestKey } from '../../shared/db/entities/approval-request.ts';
import { attemptsKey } from '../../shared/db/entities/attempt-counter.ts';
import { badgePut } from '../../shared/db/entities/badge.ts';
import { registrationKey } from '../../shared/db/entities/cmi5-registration.ts';
import { sessionKey as cmi5SessionKey } from '../../shared/db/entities/cmi5-session.ts';
import { collectionKey } from '../../shared/db/entities/collection.ts';
import { commentKey, replyLinkKey } from '../../shared/db/entities/comment.ts';
import { teamAssignmentRefWrite } from '../../shared/db/entities/course-assignment-index.ts';
import { assignmentKey } from '../../shared/db/entities/course-assignment.ts';
import { enrollmentKey } from '../../shared/db/entities/course-enrollment.ts';
import { assessmentKey, courseKey } from '../../shared/db/entities/course.ts';
import { entryKey as glossaryEntryKey } from '../../shared/db/entities/glossary.ts';
import { markKey as guideMarkKey } from '../../shared/db/entities/guide-mark.ts';
import { guideKey } from '../../shared/db/entities/guide.ts';
import { stepKey, stepRevisionKey } from '../../shared/db/entities/step.ts';
import { guideRevisionKey } from '../../shared/db/entities/guide-revision.ts';
import { authoredKey, featuredKey } from '../../shared/db/entities/guide-link.ts';
import { providerKey, replayKey, stateKey, stepUpKey, ticketKey } from '../../shared/db/entities/identity-provider.ts';
import { credentialKey } from '../../shared/db/entities/lrs-credential.ts';
import { guidKey, mediaItemKey } from '../../shared/db/entities/media-item.ts';
import { attemptKey } from '../../shared/db/entities/module-attempt.ts';
import { importKey } from '../../shared/db/entities/module-import.ts';
import { usageKey } from '../../shared/db/entities/module-usage.ts';
import { dueKey, prefsKey, sentKey, settingsKey as noticeSettingsKey } from '../../shared/db/entities/notice.ts';
import { emittedMarkerWrite, outboxKey } from '../../shared/db/entities/outbox.ts';
import { changeKey, reviewKey } from '../../shared/db/entities/periodic-review.ts';
import { levelKey } from '../../shared/db/entities/qualification-level.ts';
import { progressKey, sessionCreateWrites, sessionKey } from '../../shared/db/entities/quiz-session.ts';
import {
  categoryKey,
  COUNT_KEY,
  linkKey as quizLinkKey,
  quizKey,
  revisionKey as quizRevisionKey,
} from '../../shared/db/entities/quiz.ts';
import { headKey, releaseKey } from '../../shared/db/entities/release.ts';
import { resetKey } from '../../shared/db/entities/reset-link.ts';
import { documentKey as reviewDocumentKey, scheduleKey } from '../../shared/db/entities/review-schedule.ts';
import { GENERATION_KEY as SEARCH_GENERATION_KEY } from '../../shared/db/entities/search-generation.ts';
import { HEAD_KEY as SEARCH_INDEX_HEAD_KEY } from '../../shared/db/entities/search-index-head.ts';
import { signIntentKey } from '../../shared/db/entities/sign-intent.ts';
import { signingTokenKey } from '../../shared/db/entities/signing-token.ts';
import {
  requestKey as signoffRequestKey,
  tokenKey as finalizeTokenKey,
  traineeKey,
} from '../../shared/db/entities/signoff.ts';
import { exportKey, importKey as siteImportKey } from '../../shared/db/entities/site-transfer-job.ts';
import { requirementKey } from '../../shared/db/entities/skill-requirement.ts';
import { skillGuideKey, skillKey } from '../../shared/db/entities/skill.ts';
import { currentFormKey, fieldRevisionKey, formRevisionKey } from '../../shared/db/entities/step-form.ts';
import { linkKey as tagLinkKey, tagKey } from '../../shared/db/entities/tag.ts';
import { memberKey, teamKey } from '../../shared/db/entities/team.ts';
import { tokenKey } from '../../shared/db/entities/token.ts';
import { moduleKey } from '../../shared/db/entities/training-module.ts';
import { completionKey } from '../../shared/db/entities/training-record.ts';
import { coverageKey, rowKey, summaryPutWrite } from '../../shared/db/entities/training-row.ts';
import { settingsKey as trainingSettingsKey } from '../../shared/db/entities/training-settings.ts';
import { createdKey, userKey } from '../../shared/db/entities/user.ts';
import { viewItem } from '../../shared/db/entities/view-history.ts';
import { deliveryKey, webhookKey } from '../../shared/db/entities/webhook.ts';
import { revisionKey as wikiRevisionKey, wikiKey } from '../../shared/db/entities/wiki.ts';
import { qualificationKey } from '../../shared/db/entities/work-log-qualification.ts';
import { entryCreateWrites, entryKey as workLogEntryKey, valueKey } from '../../shared/db/entities/work-log.ts';
import { documentKey as xapiDocumentKey } from '../../shared/db/entities/xapi-document.ts';
import {
  activityKey,
  indexItems,
  indexPartition,
  seqOf,
  statementKey,
} from '../../shared/db/entities/xapi-statement.ts';

type Key = { pk: string; sk: string };
/** An entity, a key its builder spelled, and the attributes its item holds beside the key. */
type Sample = [entity: string, key: Key, attributes: Record<string, unknown>];

const HASH = 'a1'.repeat(32);
const UUID = '3f2a8c1e-5b7d-4e9f-a0c2-1d3e5f7a9b0c';
const COUNTS = { rows_total: 2, rows_completed: 1, rows_in_progress: 1 };

/** The Put items of writes, by their `entity` (or the only one). */
function putItem(writes: LabelledWrite | LabelledWrite[], entity?: string): [Key, Record<string, unknown>] {
  const items = [writes].flat().flatMap((write) => (write.item.Put?.Item ? [write.item.Put.Item] : []));
  const item = (entity ? items.find((candidate) => candidate.entity === entity) : items[0]) as Record<string, unknown>;
  if (!item) throw new Error(`no put of ${entity}`);
  return [{ pk: String(item.pk), sk: String(item.sk) }, item];
}

const fromWrites = (entity: string, writes: LabelledWrite | LabelledWrite[], byEntity = true): Sample => [
  entity,
  ...putItem(writes, byEntity ? entity : undefined),
];

const QUIZ_SESSION = sessionCreateWrites({
  quiz_sessionid: 10,
  quizid: 8,
  quiz_revisionid: 2,
  quiz_title: 'Seals',
  userid: 12,
  response_json: '{}',
  start_date: 1,
  modified_date: 1,
  end_date: null,
  submitted: 0,
  cancelled: 0,
  invalidated: 0,
  attempt: null,
  score: null,
  correct_count: null,
  question_count: null,
  passed: null,
  pass_threshold: null,
  results: null,
});

const WORK_LOG_ENTRY = entryCreateWrites({
  entryid: 13,
  guideid: 3,
  userid: 12,
  operator_userid: 12,
  workorderid: 'WO 7#1',
  guide_revisionid: 2,
  max_form_revisionid: null,
  timingid: 0,
  version: 1,
  status: 'started',
  starttime: 1,
  endtime: null,
  active_stepid: null,
  step_since: null,
  resume_stepid: null,
  idle_since: null,
  paused_seconds: 0,
  step_seconds: {},
  last_event: 1,
});

const SAMPLES: Sample[] = [
  ['User', userKey(12), { userid: 12 }],
  ['CreatedUser', createdKey(3, 12), { userid: 12 }],
  fromWrites(
    'Badge',
    badgePut({ badgeid: 'first-guide', title: 'First', description: '', level: 'bronze', userid: 12, date: 1 }),
  ),
  ['AuthoredGuide', authoredKey(12, 3), { guideid: 3 }],
  ['FavoriteGuide', guideMarkKey('FAVORITE', 12, 3), { userid: 12, guideid: 3 }],
  ['CompletedGuide', guideMarkKey('COMPLETED', 12, 3), { userid: 12, guideid: 3 }],
  ['CourseEnrollment', enrollmentKey(12, 5), { userid: 12, wikiid: 5 }],
  ['CourseCoverage', coverageKey(12, 5), { userid: 12, wikiid: 5 }],
  ['StageCompletion', completionKey(12, { doctype: 'guide', docid: 3 }), { userid: 12, doctype: 'guide', docid: 3 }],
  ['TraineeSignoff', traineeKey(12, 7), { userid: 12, stage_assessmentid: 7 }],
  ['QuizProgress', progressKey(12, 8), { userid: 12, quizid: 8 }],
  ['SignIntent', signIntentKey(12, UUID), { userid: 12, client_guid: UUID }],
  ['QualificationLevel', levelKey(12, 9), { userid: 12, skillid: 9 }],
  ['AcknowledgedVersion', ackedKey(12, { doctype: 'wiki', docid: 5 }), { userid: 12, doctype: 'wiki', docid: 5 }],
  fromWrites('TrainingSummary', summaryPutWrite({ userid: 12 }, COUNTS), false),
  fromWrites('TrainingSummary', summaryPutWrite({ teamid: 4 }, COUNTS), false),
  ['Token', tokenKey(HASH), { token_hash: HASH }],
  ['ApiToken', apiTokenKey('0123456789abcdef'), {}],
  ['LrsCredential', credentialKey('0123456789abcdef0123'), {}],
  ['XapiStatement', statementKey(UUID.toUpperCase()), { statement_id: UUID }],
  ['XapiStatementIndex', ...putLike(indexItems([indexPartition('ALL')], seqOf(1700000000000, 0, UUID), UUID)[0])],
  [
    'XapiStatementIndex',
    ...putLike(indexItems([indexPartition('VERB', 'http://example.com/v')], seqOf(1, 2, UUID), UUID)[0]),
  ],
  ['XapiActivity', activityKey('http://example.com/a'), { activity_id: 'http://example.com/a' }],
  ['Cmi5Registration', registrationKey(UUID), { registration: UUID }],
  ['Cmi5Session', cmi5SessionKey(UUID), {}],
  [
    'XapiDocument',
    xapiDocumentKey({ kind: 'STATE', scope: 'x', registration: UUID }, 'bookmark'),
    { doc_id: 'bookmark' },
  ],
  ['XapiDocument', xapiDocumentKey({ kind: 'AGENTPROFILE', scope: 'y' }, 'prefs'), { doc_id: 'prefs' }],
  ['ResetLink', resetKey(HASH), {}],
  ['SigningToken', signingTokenKey(HASH), {}],
  ['SignoffFinalizeToken', finalizeTokenKey(HASH), {}],
  ['AttemptCounter', attemptsKey('login', 'ana@example.com'), {}],
  ['Counter', counterKey('module_import'), {}],
  ['OutboxEvent', outboxKey({ entity: 'guide', sequence: padId(4), eventid: UUID }), {}],
  fromWrites('EmittedMarker', emittedMarkerWrite('notice#ACK#2#12', 'acknowledgement.overdue')),
  ['QuizCount', COUNT_KEY, {}],
  ['QuizCategory', categoryKey('Safety'), { name: 'Safety' }],
  ['Quiz', quizKey(8), { quizid: 8 }],
  ['QuizRevision', quizRevisionKey(8, 2), { quizid: 8, quiz_revisionid: 2 }],
  ['QuizLink', quizLinkKey('guide', 3, 4), { doctype: 'guide', docid: 3, doc_revisionid: 4 }],
  ['QuizSession', sessionKey(10), { quiz_sessionid: 10 }],
  fromWrites('QuizSessionLink', QUIZ_SESSION),
  ['Guide', guideKey(3), { guideid: 3 }],
  ['GuideRevision', guideRevisionKey(3, 2), { guideid: 3, revisionid: 2 }],
  ['Step', stepKey(9), { stepid: 9 }],
  ['StepRevision', stepRevisionKey(9, 2), { stepid: 9, revisionid: 2 }],
  ['FeaturedGuide', featuredKey(3), { guideid: 3 }],
  ['Wiki', wikiKey(5), { wikiid: 5 }],
  ['WikiRevision', wikiRevisionKey(5, 2), { wikiid: 5, revisionid: 2 }],
  ['Course', courseKey(5), { wikiid: 5 }],
  ['StageAssessment', assessmentKey(7), { stage_assessmentid: 7 }],
  ['Team', teamKey(4), { teamid: 4 }],
  ['TeamMember', memberKey(4, 12), { teamid: 4, userid: 12 }],
  ['SkillRequirement', requirementKey({ scope: 'team', teamid: 4 }, 9), { teamid: 4, skillid: 9 }],
  ['SkillRequirement', requirementKey({ scope: 'role', role: 'Author' }, 9), { role: 'Author', skillid: 9 }],
  fromWrites(
    'TeamAssignmentRef',
    teamAssignmentRefWrite({
      course_assignmentid: 2,
      teamid: 4,
      wikiid: 5,
      due_within: null,
      created_date: 1,
      cancelled: 0,
    }),
  ),
  ['Comment', commentKey(6), { commentid: 6 }],
  ['CommentReply', replyLinkKey(6, 11), { commentid: 11 }],
  ['MediaItem', mediaItemKey(7), { itemid: 7 }],
  ['MediaGuid', guidKey('Kx2mPq'), {}],
  ['ModuleImport', importKey(8), { importid: 8 }],
  ['TrainingModule', moduleKey(9), { moduleid: 9 }],
  ['ModuleUsage', usageKey(9, 5), { moduleid: 9, wikiid: 5 }],
  ['ModuleAttempt', attemptKey(9, 12, 1), { moduleid: 9, userid: 12, attempt: 1 }],
  ['Release', releaseKey(2), { releaseid: 2 }],
  ['ReleaseHead', headKey('guide', 3), {}],
  ['SearchIndexHead', SEARCH_INDEX_HEAD_KEY, {}],
  ['SearchGeneration', SEARCH_GENERATION_KEY, {}],
  ['Tag', tagKey('pumps'), { tag: 'pumps' }],
  ['DocumentTag', tagLinkKey({ docType: 'GUIDE', docid: 3 }, 'pumps'), { doc_type: 'GUIDE', docid: 3, tag: 'pumps' }],
  ['Unique', uniqueKey('EMAIL', 'Ana@Example.com'), {}],
  ['SearchToken', searchKey('USER', 'seal', 3), { id: 3 }],
  ['SortedRef', refKey('COURSES', 'title', 'pumps', padId(5)), {}],
  ['AuditRecord', chainKey('USER#12', `SEQ#${padId(3)}`), { subject: 'USER#12', seq: 3 }],
  ['AuditHead', chainKey('USER#12', 'HEAD'), {}],
  ['View', ...putLike(viewItem({ userid: 12, username: 'ana', doc_type: 'GUIDE', docid: 3, date: 1700000000 }))],
  ['WorkLogEntry', workLogEntryKey(13), { entryid: 13 }],
  ['WorkLogValue', valueKey(13, 14), { entryid: 13, field_revisionid: 14 }],
  ['WorkLogQualification', qualificationKey(13), { entryid: 13 }],
  fromWrites('WorkLogLink', WORK_LOG_ENTRY.slice(-1)),
  fromWrites('WorkLogLink', WORK_LOG_ENTRY.slice(1, 2)),
  ['Skill', skillKey(9), { skillid: 9 }],
  ['SkillGuide', skillGuideKey(9, 3), { skillid: 9, guideid: 3 }],
  ['Acknowledgement', ackKey(2, 12), { releaseid: 2, userid: 12 }],
  ['RetrainingMark', retrainKey({ doctype: 'guide', docid: 3 }), { doctype: 'guide', docid: 3 }],
  ['CountersignSteps', countersignKey(2), { releaseid: 2 }],
  ['ComprehensionQuiz', ackQuizKey(2), { releaseid: 2 }],
  fromWrites(
    'AcknowledgementDecline',
    declinePut({
      declineid: UUID,
      releaseid: 2,
      userid: 12,
      doctype: 'guide',
      docid: 3,
      comment: '',
      date: 1700000000,
    }),
  ),
  ['TrainingSettings', trainingSettingsKey({ kind: 'site' }), {}],
  ['TrainingSettings', trainingSettingsKey({ kind: 'wiki', docid: 5 }), {}],
  [
    'NoticeDue',
    dueKey({ shard: 3, fire_at: 1700000000, kind: 'acknowledgement_overdue', subject: 'ACK#2#12' }),
    { shard: 3, fire_at: 1700000000, kind: 'acknowledgement_overdue', subject: 'ACK#2#12' },
  ],
  [
    'NoticeSent',
    sentKey({ kind: 'acknowledgement_overdue', subject: 'ACK#2#12', due: 1700000000 }, 12),
    { kind: 'acknowledgement_overdue', subject: 'ACK#2#12', due: 1700000000, recipient_userid: 12 },
  ],
  ['NoticePreferences', prefsKey(12), { userid: 12 }],
  ['NoticeSettings', noticeSettingsKey, {}],
  ['GlossaryEntry', glossaryEntryKey(15), { entryid: 15 }],
  ['Collection', collectionKey(16), { collectionid: 16 }],
  ['Webhook', webhookKey(2), { webhookid: 2 }],
  ['WebhookDelivery', deliveryKey({ webhookid: 2, sequence: padId(5), deliveryid: UUID }), {}],
  ['WebhookDelivery', deliveryKey({ webhookid: 0, sequence: padId(5), deliveryid: UUID }), {}],
  ['ApprovalProcess', processKey(2), { approval_processid: 2 }],
  ['ApprovalAttachment', attachmentKey(5), { wikiid: 5 }],
  ['ApprovalRequest', approvalRequestKey(2), { approval_requestid: 2 }],
  ['OpenApprovalRequest', openKey('guide', 3), {}],
  ['ApprovedRevision', approvedKey('wiki', 5, 4), { revisionid: 4 }],
  ['PeriodicReview', reviewKey(2), { reviewid: 2 }],
  ['ChangeRequest', changeKey(2), { change_requestid: 2 }],
  ['ReviewSchedule', scheduleKey(2), { prsid: 2 }],
  ['ReviewDocument', reviewDocumentKey(2), { prdid: 2 }],
  ['SignoffRequest', signoffRequestKey(2), { signoff_requestid: 2 }],
  ['CourseAssignment', assignmentKey(2), { course_assignmentid: 2 }],
  ['TrainingRow', rowKey(2, 12), { course_assignmentid: 2, userid: 12 }],
  ['StepForm', currentFormKey(3, 9), { guideid: 3, stepid: 9 }],
  ['StepFormRevision', formRevisionKey(20), { form_revisionid: 20 }],
  ['StepFormField', fieldRevisionKey(21), { field_revisionid: 21 }],
  // Powertools spells these (idempotency-record.ts: staticPkValue, its `request#` + base64 sha256 key).
  ['IdempotencyRecord', { pk: 'IDEMPOTENCY#12', sk: 'request#q1Yw+Kx2/mPq0=' }, {}],
  ['IdempotencyRecord', { pk: 'IDEMPOTENCY#token-0123456789abcdef', sk: 'request#q1Yw' }, {}],
  ['SiteExport', exportKey(1), {}],
  ['SiteImport', siteImportKey(1), {}],
  ['IdentityProvider', providerKey('okta'), {}],
  ['SsoReplay', replayKey('saml', '_a1b2c3'), {}],
  ['SsoLoginState', stateKey(HASH), {}],
  ['StepUp', stepUpKey(12), {}],
  ['StepUpTicket', ticketKey(HASH), {}],
];

/** A whole item a builder returned: its key and itself. */
function putLike(item: { pk: string; sk: string }): [Key, Record<string, unknown>] {
  return [{ pk: item.pk, sk: item.sk }, item];
}

/** The same attributes with one changed, as a key would spell another record. */
function changed(value: unknown): unknown {
  return typeof value === 'number' ? value + 1 : `${String(value)}x`;
}

describe('every key shape, against its builder', () => {
  it('has a sample for every entity the registry knows, and the identity registries name only those', () => {
    const registered = ENTITY_SHAPES.map((shape) => shape.entity);
    const sampled = new Set(SAMPLES.map(([entity]) => entity));
    expect(registered.filter((entity) => !sampled.has(entity))).toEqual([]);
    expect([...sampled].filter((entity) => !registered.includes(entity))).toEqual([]);
    const known = [...Object.keys(KEY_TEMPLATES), ...KEY_ONLY_ENTITIES];
    expect(known.filter((entity) => !registered.includes(entity))).toEqual([]);
  });

  it("gives keys the registry names as the builder's entity (its shape, no earlier one)", () => {
    const wrong = SAMPLES.filter(([entity, key]) => entityOfKey(key.pk, key.sk)?.entity !== entity).map(
      ([entity, key]) => `${entity}: ${key.pk} / ${key.sk} is ${entityOfKey(key.pk, key.sk)?.entity ?? 'nothing'}`,
    );
    expect(wrong).toEqual([]);
  });

  it('gives keys that agree with the identity templates, which read every attribute they name', () => {
    const problems: string[] = [];
    for (const [entity, key, attributes] of SAMPLES) {
      const templates = KEY_TEMPLATES[entity];
      if (!templates) continue;
      const item: Record<string, unknown> = { ...attributes, ...key };
      const problem = identityProblem(entity, item);
      if (problem) problems.push(`${entity}: ${problem}`);
      const template = templates.find((candidate) => templateAttributes(candidate).every((name) => name in attributes));
      if (!template) {
        problems.push(`${entity}: the sample holds none of its templates' attributes`);
        continue;
      }
      for (const name of templateAttributes(template)) {
        if (!identityProblem(entity, { ...item, [name]: changed(item[name]) }))
          problems.push(`${entity}: its key does not follow ${name}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('samples every travelling entity whose key repeats attributes', () => {
    const sampled = new Set(SAMPLES.filter(([, , attributes]) => Object.keys(attributes).length > 0).map(([e]) => e));
    expect(Object.keys(KEY_TEMPLATES).filter((entity) => !sampled.has(entity))).toEqual([]);
  });
});
