/**
 * xAPI statement validation (xAPI 1.0.3 and IEEE 9274.1.1 / 2.0, "Statements" and "Data
 * Types"): every rule an LRS must check before it stores a statement, each failure a
 * BadRequestError (400) whose message names the property and what is wrong. Unknown properties,
 * nulls where a value is required, wrong types, bad IRIs, mbox forms, UUIDs, ISO 8601 durations
 * and timestamps, score ranges, language maps, object types and the context rules (docs/lrs.md).
 * Pure: no I/O.
 */
import { BadRequestError } from '../errors.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const VOIDED_VERB = 'http://adlnet.gov/expapi/verbs/voided';

function fail(path: string, problem: string): never {
  throw new BadRequestError(`${path}: ${problem}`);
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireObject(value: unknown, path: string): JsonObject {
  if (!isObject(value)) fail(path, 'must be a JSON object');
  return value;
}

function allowOnly(value: JsonObject, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) fail(`${path}.${key}`, 'is not a property here');
}

function requireString(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, 'must be a string');
  return value;
}

function requireBoolean(value: unknown, path: string): void {
  if (typeof value !== 'boolean') fail(path, 'must be true or false');
}

function requireNumber(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, 'must be a number');
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

function requireUuid(value: unknown, path: string): string {
  if (!isUuid(value)) fail(path, 'must be a UUID (RFC 4122, hyphenated)');
  return value;
}

/** An absolute IRI: a scheme, then no whitespace, quotes or angle brackets. */
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]+$/u;

export function isIri(value: unknown): value is string {
  return typeof value === 'string' && IRI.test(value);
}

function requireIri(value: unknown, path: string): string {
  if (!isIri(value)) fail(path, 'must be an absolute IRI');
  return value;
}

/** An IRL: an IRI a client can resolve (http or https). */
function requireIrl(value: unknown, path: string): string {
  const iri = requireIri(value, path);
  if (!/^https?:\/\/[^/]/i.test(iri)) fail(path, 'must be an http(s) IRL');
  return iri;
}

/** RFC 5646 language tag, the common forms (language, script, region, variants, extensions, private use). */
const LANGUAGE = '(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})';
const SCRIPT_REGION = String.raw`(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?`;
const VARIANTS = String.raw`(?:-(?:[A-Za-z\d]{5,8}|\d[A-Za-z\d]{3}))*`;
const EXTENSIONS = String.raw`(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z\d]{2,8})+)*`;
const PRIVATE_USE = String.raw`x(?:-[A-Za-z\d]{1,8})+`;
const LANGUAGE_TAG = new RegExp(
  `^${LANGUAGE}${SCRIPT_REGION}${VARIANTS}${EXTENSIONS}(?:-${PRIVATE_USE})?$|^${PRIVATE_USE}$`,
);

export function isLanguageTag(value: unknown): value is string {
  return typeof value === 'string' && LANGUAGE_TAG.test(value);
}

export function checkLanguageMap(value: unknown, path: string): void {
  const map = requireObject(value, path);
  for (const [tag, text] of Object.entries(map)) {
    if (!isLanguageTag(tag)) fail(`${path}.${tag}`, 'is not an RFC 5646 language tag');
    requireString(text, `${path}.${tag}`);
  }
}

function checkExtensions(value: unknown, path: string): void {
  const map = requireObject(value, path);
  for (const key of Object.keys(map)) if (!isIri(key)) fail(`${path}.${key}`, 'an extension key must be an IRI');
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-](\d{2}):?(\d{2}))$/;

/** ISO 8601 date and time with a time zone (Z or an offset; never -00:00, which RFC 3339 reserves). */
export function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = TIMESTAMP.exec(value);
  if (!match) return false;
  const [, , month, day, hour, minute, second, zone] = match;
  if (+month < 1 || +month > 12 || +day < 1 || +day > 31 || +hour > 23 || +minute > 59) return false;
  if (second !== undefined && +second > 60) return false;
  if (/^-00:?00$/.test(zone)) return false;
  return !Number.isNaN(Date.parse(value));
}

function checkTimestamp(value: unknown, path: string): void {
  if (!isTimestamp(value)) fail(path, 'must be an ISO 8601 timestamp with a time zone');
}

const NUMBER = String.raw`\d+(?:[.,]\d+)?`;
const DATE_PART = `(?:${NUMBER}Y)?(?:${NUMBER}M)?(?:${NUMBER}W)?(?:${NUMBER}D)?`;
const TIME_PART = `(?:T(?!$)(?:${NUMBER}H)?(?:${NUMBER}M)?(?:${NUMBER}S)?)?`;
const DURATION = new RegExp(`^P(?!$)${DATE_PART}${TIME_PART}$`);

export function isDuration(value: unknown): value is string {
  return typeof value === 'string' && DURATION.test(value);
}

const MBOX = /^mailto:[^@\s:/]+@[^@\s]+\.[^@\s]+$|^mailto:[^@\s:/]+@[^@\s.]+$/;
const SHA1 = /^[0-9a-f]{40}$/i;

const AGENT_KEYS = ['objectType', 'name', 'mbox', 'mbox_sha1sum', 'openid', 'account'] as const;
const IFI_KEYS = ['mbox', 'mbox_sha1sum', 'openid', 'account'] as const;

function checkIfis(value: JsonObject, path: string): number {
  const present = IFI_KEYS.filter((key) => value[key] !== undefined);
  if (present.length > 1) fail(path, `has more than one identifier (${present.join(', ')})`);
  if (value.mbox !== undefined && !MBOX.test(requireString(value.mbox, `${path}.mbox`)))
    fail(`${path}.mbox`, 'must be mailto:<email address>');
  if (value.mbox_sha1sum !== undefined && !SHA1.test(requireString(value.mbox_sha1sum, `${path}.mbox_sha1sum`)))
    fail(`${path}.mbox_sha1sum`, 'must be a SHA-1 hex digest');
  if (value.openid !== undefined) requireIri(value.openid, `${path}.openid`);
  if (value.account !== undefined) {
    const account = requireObject(value.account, `${path}.account`);
    allowOnly(account, ['homePage', 'name'], `${path}.account`);
    requireIrl(account.homePage, `${path}.account.homePage`);
    requireString(account.name, `${path}.account.name`);
  }
  return present.length;
}

export function checkAgent(value: unknown, path: string): void {
  const agent = requireObject(value, path);
  allowOnly(agent, AGENT_KEYS, path);
  if (agent.objectType !== undefined && agent.objectType !== 'Agent') fail(`${path}.objectType`, 'must be "Agent"');
  if (agent.name !== undefined) requireString(agent.name, `${path}.name`);
  if (checkIfis(agent, path) !== 1) fail(path, 'an Agent needs exactly one of mbox, mbox_sha1sum, openid, account');
}

export function checkGroup(value: unknown, path: string): void {
  const group = requireObject(value, path);
  allowOnly(group, [...AGENT_KEYS, 'member'], path);
  if (group.objectType !== 'Group') fail(`${path}.objectType`, 'must be "Group"');
  if (group.name !== undefined) requireString(group.name, `${path}.name`);
  const identified = checkIfis(group, path) === 1;
  if (group.member !== undefined) {
    if (!Array.isArray(group.member)) fail(`${path}.member`, 'must be an array of Agents');
    for (const [index, member] of group.member.entries()) checkAgent(member, `${path}.member[${index}]`);
  }
  if (!identified && (!Array.isArray(group.member) || group.member.length === 0))
    fail(`${path}.member`, 'an anonymous Group needs at least one member');
}

/** An Agent or a Group (objectType decides; an Agent may leave it out). */
export function checkActor(value: unknown, path: string): void {
  const actor = requireObject(value, path);
  if (actor.objectType === 'Group') checkGroup(actor, path);
  else checkAgent(actor, path);
}

function checkVerb(value: unknown, path: string): void {
  const verb = requireObject(value, path);
  allowOnly(verb, ['id', 'display'], path);
  requireIri(verb.id, `${path}.id`);
  if (verb.display !== undefined) checkLanguageMap(verb.display, `${path}.display`);
}

const INTERACTION_TYPES = [
  'true-false',
  'choice',
  'fill-in',
  'long-fill-in',
  'matching',
  'performance',
  'sequencing',
  'likert',
  'numeric',
  'other',
];
const COMPONENT_LISTS = ['choices', 'scale', 'source', 'target', 'steps'] as const;
const COMPONENTS_OF: Record<string, readonly string[]> = {
  choice: ['choices'],
  sequencing: ['choices'],
  likert: ['scale'],
  matching: ['source', 'target'],
  performance: ['steps'],
};

function checkDefinition(value: unknown, path: string): void {
  const definition = requireObject(value, path);
  allowOnly(
    definition,
    [
      'name',
      'description',
      'type',
      'moreInfo',
      'extensions',
      'interactionType',
      'correctResponsesPattern',
      ...COMPONENT_LISTS,
    ],
    path,
  );
  if (definition.name !== undefined) checkLanguageMap(definition.name, `${path}.name`);
  if (definition.description !== undefined) checkLanguageMap(definition.description, `${path}.description`);
  if (definition.type !== undefined) requireIri(definition.type, `${path}.type`);
  if (definition.moreInfo !== undefined) requireIrl(definition.moreInfo, `${path}.moreInfo`);
  if (definition.extensions !== undefined) checkExtensions(definition.extensions, `${path}.extensions`);
  const interaction = definition.interactionType;
  if (interaction !== undefined && !INTERACTION_TYPES.includes(interaction as string))
    fail(`${path}.interactionType`, `must be one of ${INTERACTION_TYPES.join(', ')}`);
  if (definition.correctResponsesPattern !== undefined) {
    if (interaction === undefined) fail(`${path}.correctResponsesPattern`, 'needs an interactionType');
    if (!Array.isArray(definition.correctResponsesPattern))
      fail(`${path}.correctResponsesPattern`, 'must be an array of strings');
    for (const [i, item] of definition.correctResponsesPattern.entries())
      requireString(item, `${path}.correctResponsesPattern[${i}]`);
  }
  for (const list of COMPONENT_LISTS) {
    const components = definition[list];
    if (components === undefined) continue;
    if (interaction === undefined) fail(`${path}.${list}`, 'needs an interactionType');
    if (!(COMPONENTS_OF[interaction as string] ?? []).includes(list))
      fail(`${path}.${list}`, `is not a component list of a ${interaction} interaction`);
    if (!Array.isArray(components)) fail(`${path}.${list}`, 'must be an array');
    const ids = new Set<string>();
    components.forEach((component, i) => {
      const at = `${path}.${list}[${i}]`;
      const item = requireObject(component, at);
      allowOnly(item, ['id', 'description'], at);
      const id = requireString(item.id, `${at}.id`);
      if (ids.has(id)) fail(`${at}.id`, 'repeats an id of this list');
      ids.add(id);
      if (item.description !== undefined) checkLanguageMap(item.description, `${at}.description`);
    });
  }
}

export function checkActivity(value: unknown, path: string): void {
  const activity = requireObject(value, path);
  allowOnly(activity, ['objectType', 'id', 'definition'], path);
  if (activity.objectType !== undefined && activity.objectType !== 'Activity')
    fail(`${path}.objectType`, 'must be "Activity"');
  requireIri(activity.id, `${path}.id`);
  if (activity.definition !== undefined) checkDefinition(activity.definition, `${path}.definition`);
}

function checkStatementRef(value: unknown, path: string): void {
  const ref = requireObject(value, path);
  allowOnly(ref, ['objectType', 'id'], path);
  if (ref.objectType !== 'StatementRef') fail(`${path}.objectType`, 'must be "StatementRef"');
  requireUuid(ref.id, `${path}.id`);
}

function checkObject(value: unknown, path: string, inSubStatement: boolean): void {
  const object = requireObject(value, path);
  switch (object.objectType) {
    case undefined:
    case 'Activity':
      checkActivity(object, path);
      return;
    case 'Agent':
      checkAgent(object, path);
      return;
    case 'Group':
      checkGroup(object, path);
      return;
    case 'StatementRef':
      checkStatementRef(object, path);
      return;
    case 'SubStatement':
      if (inSubStatement) fail(`${path}.objectType`, 'a SubStatement cannot hold another SubStatement');
      checkSubStatement(object, path);
      return;
    default:
      fail(`${path}.objectType`, 'must be Activity, Agent, Group, StatementRef or SubStatement');
  }
}

function checkScore(value: unknown, path: string): void {
  const score = requireObject(value, path);
  allowOnly(score, ['scaled', 'raw', 'min', 'max'], path);
  const scaled = score.scaled === undefined ? undefined : requireNumber(score.scaled, `${path}.scaled`);
  const raw = score.raw === undefined ? undefined : requireNumber(score.raw, `${path}.raw`);
  const min = score.min === undefined ? undefined : requireNumber(score.min, `${path}.min`);
  const max = score.max === undefined ? undefined : requireNumber(score.max, `${path}.max`);
  if (scaled !== undefined && (scaled < -1 || scaled > 1)) fail(`${path}.scaled`, 'must be between -1 and 1');
  if (min !== undefined && max !== undefined && min >= max) fail(`${path}.min`, 'must be less than max');
  if (raw !== undefined && min !== undefined && raw < min) fail(`${path}.raw`, 'must not be less than min');
  if (raw !== undefined && max !== undefined && raw > max) fail(`${path}.raw`, 'must not be more than max');
}

function checkResult(value: unknown, path: string): void {
  const result = requireObject(value, path);
  allowOnly(result, ['score', 'success', 'completion', 'response', 'duration', 'extensions'], path);
  if (result.score !== undefined) checkScore(result.score, `${path}.score`);
  if (result.success !== undefined) requireBoolean(result.success, `${path}.success`);
  if (result.completion !== undefined) requireBoolean(result.completion, `${path}.completion`);
  if (result.response !== undefined) requireString(result.response, `${path}.response`);
  if (result.duration !== undefined && !isDuration(result.duration))
    fail(`${path}.duration`, 'must be an ISO 8601 duration');
  if (result.extensions !== undefined) checkExtensions(result.extensions, `${path}.extensions`);
}

const CONTEXT_ACTIVITY_KINDS = ['parent', 'grouping', 'category', 'other'];

function checkContext(value: unknown, path: string, objectIsActivity: boolean): void {
  const context = requireObject(value, path);
  allowOnly(
    context,
    [
      'registration',
      'instructor',
      'team',
      'contextActivities',
      'revision',
      'platform',
      'language',
      'statement',
      'extensions',
      'contextAgents',
      'contextGroups',
    ],
    path,
  );
  if (context.registration !== undefined) requireUuid(context.registration, `${path}.registration`);
  if (context.instructor !== undefined) checkActor(context.instructor, `${path}.instructor`);
  if (context.team !== undefined) checkGroup(context.team, `${path}.team`);
  if (context.contextActivities !== undefined) {
    const activities = requireObject(context.contextActivities, `${path}.contextActivities`);
    allowOnly(activities, CONTEXT_ACTIVITY_KINDS, `${path}.contextActivities`);
    for (const [kind, list] of Object.entries(activities)) {
      const at = `${path}.contextActivities.${kind}`;
      if (Array.isArray(list)) for (const [i, activity] of list.entries()) checkActivity(activity, `${at}[${i}]`);
      else checkActivity(list, at);
    }
  }
  if (context.revision !== undefined) {
    requireString(context.revision, `${path}.revision`);
    if (!objectIsActivity) fail(`${path}.revision`, 'is only allowed when the object is an Activity');
  }
  if (context.platform !== undefined) {
    requireString(context.platform, `${path}.platform`);
    if (!objectIsActivity) fail(`${path}.platform`, 'is only allowed when the object is an Activity');
  }
  if (context.language !== undefined && !isLanguageTag(context.language))
    fail(`${path}.language`, 'must be an RFC 5646 language tag');
  if (context.statement !== undefined) checkStatementRef(context.statement, `${path}.statement`);
  if (context.extensions !== undefined) checkExtensions(context.extensions, `${path}.extensions`);
  checkContextList(context.contextAgents, `${path}.contextAgents`, 'agent', checkAgent);
  checkContextList(context.contextGroups, `${path}.contextGroups`, 'group', checkGroup);
}

/** 2.0's contextAgents / contextGroups: [{objectType: contextAgent|contextGroup, agent|group, relevantTypes?}]. */
function checkContextList(
  value: unknown,
  path: string,
  member: 'agent' | 'group',
  check: (value: unknown, path: string) => void,
): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail(path, 'must be an array');
  const objectType = member === 'agent' ? 'contextAgent' : 'contextGroup';
  value.forEach((entry, i) => {
    const at = `${path}[${i}]`;
    const item = requireObject(entry, at);
    allowOnly(item, ['objectType', member, 'relevantTypes'], at);
    if (item.objectType !== objectType) fail(`${at}.objectType`, `must be "${objectType}"`);
    check(item[member], `${at}.${member}`);
    if (item.relevantTypes !== undefined) {
      if (!Array.isArray(item.relevantTypes) || item.relevantTypes.length === 0)
        fail(`${at}.relevantTypes`, 'must be a non-empty array of IRIs');
      for (const [j, type] of item.relevantTypes.entries()) requireIri(type, `${at}.relevantTypes[${j}]`);
    }
  });
}

function checkAttachments(value: unknown, path: string): void {
  if (!Array.isArray(value)) fail(path, 'must be an array');
  value.forEach((entry, i) => {
    const at = `${path}[${i}]`;
    const attachment = requireObject(entry, at);
    allowOnly(attachment, ['usageType', 'display', 'description', 'contentType', 'length', 'sha2', 'fileUrl'], at);
    requireIri(attachment.usageType, `${at}.usageType`);
    checkLanguageMap(attachment.display, `${at}.display`);
    if (attachment.description !== undefined) checkLanguageMap(attachment.description, `${at}.description`);
    const contentType = requireString(attachment.contentType, `${at}.contentType`);
    if (!/^[\w.+-]+\/[\w.+-]+/.test(contentType)) fail(`${at}.contentType`, 'must be an Internet Media Type');
    if (!Number.isInteger(attachment.length) || (attachment.length as number) < 0)
      fail(`${at}.length`, 'must be a non-negative integer');
    const sha2 = requireString(attachment.sha2, `${at}.sha2`);
    if (!/^[0-9a-f]{56}$|^[0-9a-f]{64}$|^[0-9a-f]{96}$|^[0-9a-f]{128}$/i.test(sha2))
      fail(`${at}.sha2`, 'must be a SHA-2 hex digest');
    if (attachment.fileUrl !== undefined) requireIri(attachment.fileUrl, `${at}.fileUrl`);
  });
}

function checkCore(statement: JsonObject, path: string, inSubStatement: boolean): void {
  if (statement.actor === undefined) fail(`${path}.actor`, 'is required');
  checkActor(statement.actor, `${path}.actor`);
  if (statement.verb === undefined) fail(`${path}.verb`, 'is required');
  checkVerb(statement.verb, `${path}.verb`);
  if (statement.object === undefined) fail(`${path}.object`, 'is required');
  checkObject(statement.object, `${path}.object`, inSubStatement);
  if (statement.result !== undefined) checkResult(statement.result, `${path}.result`);
  const object = statement.object as JsonObject;
  const objectIsActivity = object.objectType === undefined || object.objectType === 'Activity';
  if (statement.context !== undefined) checkContext(statement.context, `${path}.context`, objectIsActivity);
  if (statement.timestamp !== undefined) checkTimestamp(statement.timestamp, `${path}.timestamp`);
  if (statement.attachments !== undefined) checkAttachments(statement.attachments, `${path}.attachments`);
  if ((statement.verb as JsonObject).id === VOIDED_VERB && object.objectType !== 'StatementRef')
    fail(`${path}.object`, 'a voiding statement must have a StatementRef as its object');
}

function checkSubStatement(value: JsonObject, path: string): void {
  allowOnly(value, ['objectType', 'actor', 'verb', 'object', 'result', 'context', 'timestamp', 'attachments'], path);
  checkCore(value, path, true);
}

const VERSION = /^1\.0(?:\.\d+)?$|^2\.0\.0$/;

/**
 * Checks one statement as a client sent it. `stored` and `authority` are the LRS's to set; a
 * client may send them (a statement copied from another LRS) and they are checked, then replaced.
 */
export function checkStatement(value: unknown, path = 'statement'): JsonObject {
  const statement = requireObject(value, path);
  allowOnly(
    statement,
    [
      'id',
      'actor',
      'verb',
      'object',
      'result',
      'context',
      'timestamp',
      'stored',
      'authority',
      'version',
      'attachments',
    ],
    path,
  );
  if (statement.id !== undefined) requireUuid(statement.id, `${path}.id`);
  checkCore(statement, path, false);
  if (statement.stored !== undefined) checkTimestamp(statement.stored, `${path}.stored`);
  if (statement.authority !== undefined) {
    checkActor(statement.authority, `${path}.authority`);
    const authority = statement.authority as JsonObject;
    if (authority.objectType === 'Group' && (authority.member as Json[] | undefined)?.length !== 2)
      fail(`${path}.authority`, 'a Group authority must have exactly two members (OAuth consumer and user)');
  }
  if (statement.version !== undefined && !VERSION.test(requireString(statement.version, `${path}.version`)))
    fail(`${path}.version`, 'must be 1.0.x or 2.0.0');
  return statement;
}
