/**
 * What an LMS enforces of a cmi5 AU's statements (the cmi5 specification's sections 9 and 10),
 * without I/O: the statements an AU sends in its session, checked in order against where the
 * session is and what the registration already judged. A broken rule is a reason the LRS
 * answers 403 with. Also the verbs, categories and extensions cmi5 names, and moveOn. decision 310.
 */
import type { Cmi5Au, Cmi5Course } from './cmi5-structure.ts';
import { ausOfBlock } from './cmi5-structure.ts';
import { isObject, type JsonObject } from './statement-rules.ts';

export const CMI5_VERBS = {
  launched: 'http://adlnet.gov/expapi/verbs/launched',
  initialized: 'http://adlnet.gov/expapi/verbs/initialized',
  completed: 'http://adlnet.gov/expapi/verbs/completed',
  passed: 'http://adlnet.gov/expapi/verbs/passed',
  failed: 'http://adlnet.gov/expapi/verbs/failed',
  abandoned: 'https://w3id.org/xapi/adl/verbs/abandoned',
  waived: 'https://w3id.org/xapi/adl/verbs/waived',
  terminated: 'http://adlnet.gov/expapi/verbs/terminated',
  satisfied: 'https://w3id.org/xapi/adl/verbs/satisfied',
} as const;
export type Cmi5Verb = keyof typeof CMI5_VERBS;

export const CMI5_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
export const MOVEON_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/moveon';
export const SESSION_EXTENSION = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid';
export const MASTERY_EXTENSION = 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore';
export const REASON_EXTENSION = 'https://w3id.org/xapi/cmi5/result/extensions/reason';
export const LAUNCH_DATA_STATE = 'LMS.LaunchData';

/** Verbs only the LMS states. */
const LMS_ONLY: Cmi5Verb[] = ['launched', 'abandoned', 'waived', 'satisfied'];
/** Verbs that judge the AU: only in Normal mode, with the moveon category. */
const JUDGING: Cmi5Verb[] = ['completed', 'passed', 'failed'];

export function cmi5VerbOf(statement: JsonObject): Cmi5Verb | undefined {
  const id = isObject(statement.verb) ? statement.verb.id : undefined;
  return (Object.keys(CMI5_VERBS) as Cmi5Verb[]).find((verb) => CMI5_VERBS[verb] === id);
}

/** Where a session is, and what the registration judged of its AU: what the rules read and move. */
export interface AuSessionState {
  state: 'launched' | 'initialized' | 'terminated' | 'abandoned';
  launchMode: 'Normal' | 'Browse' | 'Review';
  completed: boolean;
  passed: boolean;
  failed: boolean;
}

export interface AuSessionFacts {
  sessionId: string;
  registration: string;
  actor: JsonObject;
  au: Cmi5Au;
}

export class Cmi5RuleBroken extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Cmi5RuleBroken';
  }
}

function categories(statement: JsonObject): string[] {
  const context = isObject(statement.context) ? statement.context : {};
  const activities = isObject(context.contextActivities) ? context.contextActivities : {};
  const list = Array.isArray(activities.category)
    ? activities.category
    : isObject(activities.category)
      ? [activities.category]
      : [];
  return list.filter(isObject).map((activity) => String(activity.id));
}

function sameAgent(a: unknown, b: JsonObject): boolean {
  if (!isObject(a)) return false;
  const accountA = isObject(a.account) ? a.account : undefined;
  const accountB = isObject(b.account) ? b.account : undefined;
  if (accountB) return !!accountA && accountA.homePage === accountB.homePage && accountA.name === accountB.name;
  return a.mbox !== undefined && a.mbox === b.mbox;
}

/**
 * Checks the statements an AU sends, in order, and returns the state they leave the session in.
 * Throws Cmi5RuleBroken with the rule's reason for the first statement that breaks one.
 */
export function checkAuStatements(
  facts: AuSessionFacts,
  state: AuSessionState,
  statements: JsonObject[],
): AuSessionState {
  let now = { ...state };
  for (const statement of statements) {
    if (now.state === 'terminated' || now.state === 'abandoned')
      throw new Cmi5RuleBroken(`The session is ${now.state}: the AU may send no more statements in it`);
    if (!sameAgent(statement.actor, facts.actor))
      throw new Cmi5RuleBroken('actor: must be the actor the AU was launched with');
    const context = isObject(statement.context) ? statement.context : {};
    if (String(context.registration ?? '').toLowerCase() !== facts.registration)
      throw new Cmi5RuleBroken('context.registration: must be the registration the AU was launched with');
    const verb = cmi5VerbOf(statement);
    if (verb === undefined) {
      if (now.state === 'launched') throw new Cmi5RuleBroken('The first statement of a session must be initialized');
      continue;
    }
    if (LMS_ONLY.includes(verb)) throw new Cmi5RuleBroken(`${verb}: only the LMS sends this statement`);
    const object = isObject(statement.object) ? statement.object : {};
    if (object.id !== facts.au.id) throw new Cmi5RuleBroken(`${verb}: the object must be the AU (${facts.au.id})`);
    if (!categories(statement).includes(CMI5_CATEGORY))
      throw new Cmi5RuleBroken(`${verb}: context.contextActivities.category must hold the cmi5 category`);
    const extensions = isObject(context.extensions) ? context.extensions : {};
    if (extensions[SESSION_EXTENSION] !== facts.sessionId)
      throw new Cmi5RuleBroken(`${verb}: context.extensions must carry the session id`);
    if (verb === 'initialized') {
      if (now.state !== 'launched') throw new Cmi5RuleBroken('initialized: the session was initialized already');
      now = { ...now, state: 'initialized' };
      continue;
    }
    if (now.state === 'launched') throw new Cmi5RuleBroken('The first statement of a session must be initialized');
    if (verb === 'terminated') {
      now = { ...now, state: 'terminated' };
      continue;
    }
    // completed, passed, failed
    if (now.launchMode !== 'Normal')
      throw new Cmi5RuleBroken(`${verb}: not in launch mode ${now.launchMode}, only in Normal`);
    if (JUDGING.includes(verb) && !categories(statement).includes(MOVEON_CATEGORY))
      throw new Cmi5RuleBroken(`${verb}: context.contextActivities.category must hold the moveon category`);
    const result = isObject(statement.result) ? statement.result : {};
    if (verb === 'completed') {
      if (now.completed) throw new Cmi5RuleBroken('completed: the AU was completed in this registration already');
      if (result.completion !== true) throw new Cmi5RuleBroken('completed: result.completion must be true');
      now = { ...now, completed: true };
      continue;
    }
    if (now.passed) throw new Cmi5RuleBroken(`${verb}: the AU was passed in this registration already`);
    const score = isObject(result.score) ? result.score.scaled : undefined;
    const mastery = facts.au.mastery_score;
    if (verb === 'passed') {
      if (result.success !== true) throw new Cmi5RuleBroken('passed: result.success must be true');
      if (mastery !== null && (typeof score !== 'number' || score < mastery))
        throw new Cmi5RuleBroken(`passed: result.score.scaled must be at least the mastery score ${mastery}`);
      now = { ...now, passed: true };
    } else {
      if (result.success !== false) throw new Cmi5RuleBroken('failed: result.success must be false');
      if (mastery !== null && (typeof score !== 'number' || score >= mastery))
        throw new Cmi5RuleBroken(`failed: result.score.scaled must be below the mastery score ${mastery}`);
      now = { ...now, failed: true };
    }
  }
  return now;
}

/** Whether an AU's moveOn is met by what was judged of it (a waived AU is met). */
export function auSatisfied(au: Cmi5Au, status: { completed: boolean; passed: boolean; waived: boolean }): boolean {
  if (status.waived) return true;
  switch (au.move_on) {
    case 'Passed':
      return status.passed;
    case 'Completed':
      return status.completed;
    case 'CompletedAndPassed':
      return status.completed && status.passed;
    case 'CompletedOrPassed':
      return status.completed || status.passed;
    case 'NotApplicable':
      return true;
  }
}

/** The blocks whose every AU is satisfied, and whether the whole course is. */
export function satisfiedParts(
  course: Cmi5Course,
  satisfied: (au: Cmi5Au) => boolean,
): { blocks: string[]; course: boolean } {
  return {
    blocks: course.blocks.filter((block) => ausOfBlock(course, block.id).every(satisfied)).map((block) => block.id),
    course: course.aus.every(satisfied),
  };
}
