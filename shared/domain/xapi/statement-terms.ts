/**
 * What a stored statement can be found by (the `agent`, `verb`, `activity`, `registration` and
 * `related_*` filters of GET /xapi/statements), and the `format` projections (ids, canonical).
 * One function decides the terms, so the index items written with a statement and the check a
 * query makes of each candidate cannot disagree (docs/lrs.md). Pure: no I/O.
 */
import { isObject, type Json, type JsonObject } from './statement-rules.ts';

/**
 * An Agent's or identified Group's identity: its one inverse functional identifier, spelled
 * as one string. Undefined for an anonymous Group (no identifier).
 */
export function agentKey(agent: unknown): string | undefined {
  if (!isObject(agent)) return undefined;
  if (typeof agent.mbox === 'string') return `mbox:${agent.mbox.toLowerCase()}`;
  if (typeof agent.mbox_sha1sum === 'string') return `sha1:${agent.mbox_sha1sum.toLowerCase()}`;
  if (typeof agent.openid === 'string') return `openid:${agent.openid}`;
  if (isObject(agent.account) && typeof agent.account.homePage === 'string' && typeof agent.account.name === 'string')
    return `account:${agent.account.homePage}|${agent.account.name}`;
  return undefined;
}

export interface StatementTerms {
  /** The actor and an Agent or Group object (the `agent` filter). */
  agents: string[];
  /** Every agent anywhere in the statement (`related_agents=true`). */
  relatedAgents: string[];
  verb: string;
  /** The object's id when it is an Activity (the `activity` filter). */
  activity?: string;
  /** Every activity anywhere in the statement (`related_activities=true`). */
  relatedActivities: string[];
  registration?: string;
}

function actorKeys(actor: unknown, into: Set<string>, withMembers: boolean): void {
  if (!isObject(actor)) return;
  const key = agentKey(actor);
  if (key) into.add(key);
  if (withMembers && Array.isArray(actor.member)) for (const member of actor.member) actorKeys(member, into, false);
}

function contextActivityIds(context: unknown, into: Set<string>): void {
  if (!isObject(context) || !isObject(context.contextActivities)) return;
  for (const list of Object.values(context.contextActivities)) {
    for (const activity of Array.isArray(list) ? list : [list])
      if (isObject(activity) && typeof activity.id === 'string') into.add(activity.id);
  }
}

function contextAgentKeys(context: unknown, into: Set<string>): void {
  if (!isObject(context)) return;
  actorKeys(context.instructor, into, true);
  actorKeys(context.team, into, true);
  for (const entry of Array.isArray(context.contextAgents) ? context.contextAgents : [])
    if (isObject(entry)) actorKeys(entry.agent, into, false);
  for (const entry of Array.isArray(context.contextGroups) ? context.contextGroups : [])
    if (isObject(entry)) actorKeys(entry.group, into, true);
}

function isActivity(object: JsonObject): boolean {
  return object.objectType === undefined || object.objectType === 'Activity';
}

function isAgentOrGroup(object: JsonObject): boolean {
  return object.objectType === 'Agent' || object.objectType === 'Group';
}

export function termsOf(statement: JsonObject): StatementTerms {
  const object = statement.object as JsonObject;
  const agents = new Set<string>();
  actorKeys(statement.actor, agents, false);
  if (isAgentOrGroup(object)) actorKeys(object, agents, false);
  const related = new Set<string>();
  actorKeys(statement.actor, related, true);
  actorKeys(statement.authority, related, true);
  contextAgentKeys(statement.context, related);
  const activities = new Set<string>();
  if (isActivity(object)) activities.add(object.id as string);
  contextActivityIds(statement.context, activities);
  if (isAgentOrGroup(object)) actorKeys(object, related, true);
  if (object.objectType === 'SubStatement') {
    actorKeys(object.actor, related, true);
    const inner = object.object as JsonObject;
    if (isAgentOrGroup(inner)) actorKeys(inner, related, true);
    if (isActivity(inner)) activities.add(inner.id as string);
    contextAgentKeys(object.context, related);
    contextActivityIds(object.context, activities);
  }
  const context = isObject(statement.context) ? statement.context : undefined;
  return {
    agents: [...agents],
    relatedAgents: [...related],
    verb: (statement.verb as JsonObject).id as string,
    activity: isActivity(object) ? (object.id as string) : undefined,
    relatedActivities: [...activities],
    registration: typeof context?.registration === 'string' ? context.registration.toLowerCase() : undefined,
  };
}

export interface StatementFilter {
  agent?: string;
  verb?: string;
  activity?: string;
  registration?: string;
  relatedActivities?: boolean;
  relatedAgents?: boolean;
}

export function matchesFilter(terms: StatementTerms, filter: StatementFilter): boolean {
  if (filter.verb !== undefined && terms.verb !== filter.verb) return false;
  if (filter.registration !== undefined && terms.registration !== filter.registration) return false;
  if (filter.agent !== undefined) {
    const agents = filter.relatedAgents ? terms.relatedAgents : terms.agents;
    if (!agents.includes(filter.agent)) return false;
  }
  if (filter.activity !== undefined) {
    if (
      filter.relatedActivities ? !terms.relatedActivities.includes(filter.activity) : terms.activity !== filter.activity
    )
      return false;
  }
  return true;
}

/** An Agent or Group reduced to its identifier (and a Group's members likewise): `format=ids`. */
function idsOfActor(actor: Json): Json {
  if (!isObject(actor)) return actor;
  const reduced: JsonObject = {};
  if (actor.objectType !== undefined) reduced.objectType = actor.objectType;
  for (const key of ['mbox', 'mbox_sha1sum', 'openid', 'account'])
    if (actor[key] !== undefined) reduced[key] = actor[key];
  if (Array.isArray(actor.member)) reduced.member = actor.member.map(idsOfActor);
  return reduced;
}

function idsOfObject(object: JsonObject): JsonObject {
  if (isActivity(object)) return { ...(object.objectType ? { objectType: 'Activity' } : {}), id: object.id };
  if (isAgentOrGroup(object)) return idsOfActor(object) as JsonObject;
  if (object.objectType === 'SubStatement') return idsOfStatement(object);
  return object;
}

function idsOfContext(context: Json): Json {
  if (!isObject(context)) return context;
  const reduced: JsonObject = { ...context };
  if (context.instructor !== undefined) reduced.instructor = idsOfActor(context.instructor);
  if (context.team !== undefined) reduced.team = idsOfActor(context.team);
  if (isObject(context.contextActivities)) {
    const activities: JsonObject = {};
    for (const [kind, list] of Object.entries(context.contextActivities))
      activities[kind] = (Array.isArray(list) ? list : [list]).map((a) => idsOfObject(a as JsonObject));
    reduced.contextActivities = activities;
  }
  return reduced;
}

/** `format=ids`: agents, activities, verbs and groups by their identifiers only. */
export function idsOfStatement(statement: JsonObject): JsonObject {
  const reduced: JsonObject = { ...statement };
  reduced.actor = idsOfActor(statement.actor);
  reduced.verb = { id: (statement.verb as JsonObject).id };
  reduced.object = idsOfObject(statement.object as JsonObject);
  if (statement.context !== undefined) reduced.context = idsOfContext(statement.context);
  if (statement.authority !== undefined) reduced.authority = idsOfActor(statement.authority);
  return reduced;
}

/** The one entry of a language map the reader asked for (Accept-Language), else the first. */
function pickLanguage(map: Json, languages: string[]): Json {
  if (!isObject(map)) return map;
  const tags = Object.keys(map);
  if (tags.length <= 1) return map;
  const lower = tags.map((tag) => tag.toLowerCase());
  for (const wanted of languages) {
    const exact = lower.indexOf(wanted.toLowerCase());
    if (exact >= 0) return { [tags[exact]]: map[tags[exact]] };
    const prefix = lower.findIndex((tag) => tag.split('-')[0] === wanted.toLowerCase().split('-')[0]);
    if (prefix >= 0) return { [tags[prefix]]: map[tags[prefix]] };
  }
  return { [tags[0]]: map[tags[0]] };
}

const LANGUAGE_MAP_KEYS = new Set(['display', 'name', 'description']);

/** `format=canonical`: every language map reduced to the one language the reader prefers. */
export function canonicalOf(value: Json, languages: string[], key = ''): Json {
  if (Array.isArray(value)) return value.map((item) => canonicalOf(item, languages));
  if (!isObject(value)) return value;
  if (LANGUAGE_MAP_KEYS.has(key) && Object.values(value).every((text) => typeof text === 'string'))
    return pickLanguage(value, languages);
  const out: JsonObject = {};
  for (const [name, inner] of Object.entries(value))
    out[name] = name === 'extensions' ? inner : canonicalOf(inner, languages, name);
  return out;
}

/** The languages of an Accept-Language header, most preferred first. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.find((param) => param.trim().startsWith('q='));
      return { tag: tag.trim(), q: q ? Number(q.trim().slice(2)) : 1 };
    })
    .filter((entry) => entry.tag && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((entry) => entry.tag);
}
