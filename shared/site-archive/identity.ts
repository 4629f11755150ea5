/**
 * Identity is the key (decision 254): an item's key names what it is and whose it is, and the
 * attributes that repeat an id of the key must agree with it. The table's readers trust the
 * attributes (a batch read maps items by their `userid`, a session names the account by the
 * user item's `userid`), so a site file's User keyed USER#771551 with `userid: 1` would sign in
 * as the first Admin. Each travelling entity declares here how its key is spelled from its own
 * attributes, as its entity file's key builder spells it; an import refuses an item whose key
 * is not the one its attributes give, naming the attributes that disagree.
 *
 * A template is [pk, sk]: `{name}` is the attribute as written, `{name:pad}` zero-padded as sort
 * keys pad ids (shared/db/keys.ts), `{name:lower}` / `{name:upper}` in that case,
 * `{name:sha256}` its SHA-256 in hex (the LRS keys IRIs and document ids by their hash), and `{}` a
 * part of the key no attribute repeats (the shape check of entity-schemas.ts already holds it).
 */
import { padId } from '../db/keys.ts';
import { sha256Hex } from '../domain/secrets.ts';

type Template = readonly [pk: string, sk: string];

/** Travelling entities whose key repeats attributes, and their templates (of several, the one whose literals fit). */
export const KEY_TEMPLATES: Readonly<Record<string, readonly Template[]>> = {
  User: [['USER#{userid}', 'USER']],
  CreatedUser: [['USER#{}', 'CREATED#{userid:pad}']],
  Badge: [['USER#{userid}', 'BADGE#{badgeid}']],
  AuthoredGuide: [['USER#{}', 'AUTHORED#GUIDE#{guideid:pad}']],
  FavoriteGuide: [['USER#{userid}', 'FAVORITE#GUIDE#{guideid:pad}']],
  CompletedGuide: [['USER#{userid}', 'COMPLETED#GUIDE#{guideid:pad}']],
  CourseEnrollment: [['USER#{userid}', 'ENROLLED#COURSE#{wikiid:pad}']],
  CourseCoverage: [['USER#{userid}', 'COVERAGE#COURSE#{wikiid:pad}']],
  StageCompletion: [['USER#{userid}', 'TRAINDOC#{doctype}#{docid:pad}']],
  TraineeSignoff: [['USER#{userid}', 'SIGNOFF#{stage_assessmentid:pad}']],
  QuizProgress: [['USER#{userid}', 'QUIZSTATE#{quizid:pad}']],
  SignIntent: [['USER#{userid}', 'SIGNINTENT#{client_guid}']],
  QualificationLevel: [['USER#{userid}', 'LEVEL#{skillid:pad}']],
  SkillRequirement: [
    ['TEAM#{teamid}', 'REQUIRES#{skillid:pad}'],
    ['ROLEREQ#{role}', 'REQUIRES#{skillid:pad}'],
  ],
  AcknowledgedVersion: [['USER#{userid}', 'ACKED#{doctype}#{docid:pad}']],
  TrainingSummary: [
    ['USER#{userid}', 'TRAINSUMMARY'],
    ['TEAM#{teamid}', 'TRAINSUMMARY'],
  ],
  Token: [['TOKEN#{token_hash}', 'TOKEN']],
  QuizCategory: [['QUIZCATEGORIES', '{name:lower}']],
  Quiz: [['QUIZ#{quizid}', 'QUIZ']],
  QuizRevision: [['QUIZ#{quizid}', 'REV#{quiz_revisionid:pad}']],
  QuizLink: [['QUIZLINK#{doctype}#{docid}', 'REV#{doc_revisionid:pad}']],
  QuizSession: [['QUIZSESSION#{quiz_sessionid}', 'SESSION']],
  QuizSessionLink: [['QUIZSESSIONS#QUIZ#{}', '{quiz_sessionid:pad}']],
  Guide: [['GUIDE#{guideid}', 'GUIDE']],
  GuideRevision: [['GUIDE#{guideid}', 'REV#{revisionid:pad}']],
  Step: [['STEP#{stepid}', 'STEP']],
  StepRevision: [['STEP#{stepid}', 'REV#{revisionid:pad}']],
  FeaturedGuide: [['FEATURED#GUIDE', '{guideid:pad}']],
  Wiki: [['WIKI#{wikiid}', 'WIKI']],
  WikiRevision: [['WIKI#{wikiid}', 'REV#{revisionid:pad}']],
  Course: [['WIKI#{wikiid}', 'COURSE']],
  StageAssessment: [['ASSESSMENT#{stage_assessmentid}', 'ASSESSMENT']],
  Team: [['TEAM#{teamid}', 'TEAM']],
  TeamMember: [['TEAM#{teamid}', 'MEMBER#{userid:pad}']],
  TeamAssignmentRef: [['TEAM#{teamid}', 'ASSIGNMENT#{course_assignmentid:pad}']],
  Comment: [['COMMENT#{commentid}', 'COMMENT']],
  CommentReply: [['COMMENT#{}', 'REPLY#{commentid:pad}']],
  MediaItem: [['MEDIA#{itemid}', 'MEDIA']],
  ModuleImport: [['IMPORT#{importid}', 'IMPORT']],
  TrainingModule: [['MODULE#{moduleid}', 'MODULE']],
  ModuleUsage: [['MODULE#{moduleid}', 'USAGE#COURSE#{wikiid:pad}']],
  Release: [['RELEASE#{releaseid}', 'RELEASE']],
  Tag: [['TAG#{tag}', 'TAG']],
  DocumentTag: [['TAGGED#{doc_type}#{docid}', 'TAG#{tag}']],
  SearchToken: [['SEARCH#{}', '{}#{id:pad}']],
  AuditRecord: [['AUDIT#{subject}', 'SEQ#{seq:pad}']],
  View: [['VIEWS#USER#{userid}', '{date:pad}#{doc_type}#{docid:pad}']],
  WorkLogEntry: [['WORKLOG#{entryid}', 'ENTRY']],
  WorkLogValue: [['WORKLOG#{entryid}', 'DATA#{field_revisionid:pad}']],
  WorkLogQualification: [['WORKLOG#{entryid}', 'QUALIFICATION']],
  WorkLogLink: [['WORKLOGS{}', '{entryid:pad}']],
  Skill: [['SKILL#{skillid}', 'SKILL']],
  SkillGuide: [['SKILL#{skillid}', 'GUIDE#{guideid:pad}']],
  Acknowledgement: [['ACK#{releaseid}', 'USER#{userid:pad}']],
  RetrainingMark: [['RETRAIN#{doctype}#{docid}', 'MARK']],
  CountersignSteps: [['ACKCS#{releaseid}', 'STEPS']],
  ComprehensionQuiz: [['ACKQUIZ#{releaseid}', 'QUIZ']],
  AcknowledgementDecline: [['ACKDECLINE#{releaseid}#{userid}', 'DECLINE#{date:pad}#{declineid}']],
  NoticeDue: [['NOTICEDUE#{shard}', '{fire_at:pad}#{kind}#{subject}']],
  NoticeSent: [['NOTICESENT#{kind}#{subject}#{due}#{recipient_userid}', 'SENT']],
  NoticePreferences: [['NOTICEPREF#{userid}', 'PREFS']],
  GlossaryEntry: [['GLOSSARY#{entryid}', 'ENTRY']],
  Webhook: [['WEBHOOK#{webhookid}', 'WEBHOOK']],
  Collection: [['COLLECTION#{collectionid}', 'COLLECTION']],
  ModuleAttempt: [['ATTEMPTS#MODULE#{moduleid}#USER#{userid}', 'ATTEMPT#{attempt:pad}']],
  XapiStatement: [['XSTMT#{statement_id:lower}', 'STMT']],
  // The seq (stored time, position) is free; the statement it names ends the sort key.
  XapiStatementIndex: [['XIDX#{}', '{}#{statement_id}']],
  XapiActivity: [['XACT#{activity_id:sha256}', 'ACTIVITY']],
  Cmi5Registration: [['CMI5REG#{registration}', 'CMI5REG']],
  // The scope (activity, agent) is hashed into the partition and not kept apart from it.
  XapiDocument: [['XDOC#{}', '{}#{doc_id:sha256}']],
  ApprovalProcess: [['APPROVAL_PROCESS#{approval_processid}', 'PROCESS']],
  ApprovalAttachment: [['APPROVAL_ATTACHMENT#WIKI#{wikiid}', 'ATTACHMENT']],
  ApprovalRequest: [['APPROVAL_REQUEST#{approval_requestid}', 'REQUEST']],
  ApprovedRevision: [['APPROVAL_APPROVED#{}', 'REV#{revisionid:pad}']],
  PeriodicReview: [['PR_REVIEW#{reviewid}', 'REVIEW']],
  ChangeRequest: [['PR_CHANGE#{change_requestid}', 'CHANGE_REQUEST']],
  ReviewSchedule: [['PR_SCHEDULE#{prsid}', 'SCHEDULE']],
  ReviewDocument: [['PR_DOCUMENT#{prdid}', 'DOCUMENT']],
  SignoffRequest: [['SIGNOFF#{signoff_requestid}', 'SIGNOFF']],
  CourseAssignment: [['ASSIGNMENT#{course_assignmentid}', 'ASSIGNMENT']],
  TrainingRow: [['ASSIGNMENT#{course_assignmentid}', 'ROW#{userid:pad}']],
  StepForm: [['STEPFORMS#GUIDE#{guideid}', 'STEP#{stepid:pad}']],
  StepFormRevision: [['FORMREV#{form_revisionid}', 'FORM']],
  StepFormField: [['FIELDREV#{field_revisionid}', 'FIELD']],
};

/**
 * Travelling entities no attribute of which repeats their key (the key alone names them), and
 * the Unique claims, which an import derives from the records they guard (unique-claims.ts).
 */
export const KEY_ONLY_ENTITIES: ReadonlySet<string> = new Set([
  'Counter',
  'EmittedMarker',
  'QuizCount',
  'MediaGuid',
  'ReleaseHead',
  'SortedRef',
  'AuditHead',
  'TrainingSettings',
  'NoticeSettings',
  'OpenApprovalRequest',
  'Unique',
]);

const PLACEHOLDER = /\{([a-z_]*)(?::(pad|lower|upper|sha256))?\}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One attribute as a key spells it, or undefined when it cannot be in a key. */
function spelled(value: unknown, form: string | undefined): string | undefined {
  if (form === 'pad')
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? padId(value) : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string' || value === '') return undefined;
  if (form === 'lower') return value.toLowerCase();
  if (form === 'upper') return value.toUpperCase();
  if (form === 'sha256') return sha256Hex(value);
  return value;
}

/** The key part a template spells from the item as a pattern (`{}` parts free), or the attributes it lacks. */
function keyPattern(part: string, item: Record<string, unknown>, missing: string[]): RegExp {
  let source = '';
  let last = 0;
  for (const match of part.matchAll(PLACEHOLDER)) {
    source += escapeRegExp(part.slice(last, match.index));
    last = match.index + match[0].length;
    const [, name, form] = match;
    if (!name) {
      source += '.*';
      continue;
    }
    const value = spelled(item[name], form);
    if (value === undefined) missing.push(name);
    source += escapeRegExp(value ?? '');
  }
  return new RegExp(`^${source}${escapeRegExp(part.slice(last))}$`);
}

/** The literal text of a template part, as a pattern with every placeholder free. */
function shapePattern(part: string): RegExp {
  let source = '';
  let last = 0;
  for (const match of part.matchAll(PLACEHOLDER)) {
    source += `${escapeRegExp(part.slice(last, match.index))}.*`;
    last = match.index + match[0].length;
  }
  return new RegExp(`^${source}${escapeRegExp(part.slice(last))}$`);
}

/** The attributes a template reads. */
export function templateAttributes(template: Template): string[] {
  return template.flatMap((part) => [...part.matchAll(PLACEHOLDER)].map((match) => match[1]!).filter(Boolean));
}

/**
 * Why an item's attributes disagree with its key ("its key says USER#771551, its userid says
 * USER#1"), or undefined when they agree (or the entity's key repeats no attribute).
 */
export function identityProblem(entity: string, item: Record<string, unknown>): string | undefined {
  const templates = KEY_TEMPLATES[entity];
  if (!templates) return undefined;
  const pk = String(item.pk);
  const sk = String(item.sk);
  const template =
    templates.find(([pkPart, skPart]) => shapePattern(pkPart).test(pk) && shapePattern(skPart).test(sk)) ??
    templates[0]!;
  const missing: string[] = [];
  const [pkPart, skPart] = template;
  const pkPattern = keyPattern(pkPart, item, missing);
  const skPattern = keyPattern(skPart, item, missing);
  if (missing.length > 0) {
    return `its key ${pk} / ${sk} names ${missing.join(', ')}, which the item does not hold as a key would spell it`;
  }
  if (pkPattern.test(pk) && skPattern.test(sk)) return undefined;
  const attributes = templateAttributes(template);
  const said = attributes.map((name) => `${name} ${JSON.stringify(item[name])}`).join(', ');
  return `its attributes (${said}) disagree with its key ${pk} / ${sk}: the key decides what an item is`;
}

/** The integer an id attribute has in the item's key (ids counters move past), or undefined. */
export function idInKey(entity: string, attribute: string, item: { pk: string; sk: string }): number | undefined {
  for (const template of KEY_TEMPLATES[entity] ?? []) {
    for (const [index, part] of template.entries()) {
      let source = '';
      let last = 0;
      let group = 0;
      let wanted = 0;
      for (const match of part.matchAll(PLACEHOLDER)) {
        source += escapeRegExp(part.slice(last, match.index));
        last = match.index + match[0].length;
        group += 1;
        if (match[1] === attribute) wanted = group;
        source += match[1] === attribute ? '(\\d+)' : '(.+?)';
      }
      if (wanted === 0) continue;
      const found = new RegExp(`^${source}${escapeRegExp(part.slice(last))}$`).exec(index === 0 ? item.pk : item.sk);
      const id = found ? Number(found[wanted]) : Number.NaN;
      if (Number.isSafeInteger(id)) return id;
    }
  }
  return undefined;
}
