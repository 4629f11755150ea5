/**
 * xAPI statements (xAPI 1.0.3) for the events a learning record store cares about, no I/O:
 * - work_log.finished: the operator `completed` the guide;
 * - course_stage.completed: the trainee `completed` the course stage (the course as its parent);
 * - quiz_session.submitted: the user `passed` or `failed` the quiz, with the scaled score.
 * Actors are accounts on the site (homePage = the site URL, name = the userid), so no e-mail
 * address leaves Stepwise. Statement ids derive from the event id: a repeated delivery carries
 * the same ids, and the LRS recognises them.
 */
import { createHash } from 'node:crypto';
import type { StoredEvent } from './stored-event.ts';

const VERBS = {
  completed: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
  passed: { id: 'http://adlnet.gov/expapi/verbs/passed', display: { 'en-US': 'passed' } },
  failed: { id: 'http://adlnet.gov/expapi/verbs/failed', display: { 'en-US': 'failed' } },
};
const ACTIVITY_TYPES = {
  guide: 'http://adlnet.gov/expapi/activities/lesson',
  stage: 'http://adlnet.gov/expapi/activities/module',
  course: 'http://adlnet.gov/expapi/activities/course',
  quiz: 'http://adlnet.gov/expapi/activities/assessment',
};

/** A name-based UUID (version 5 layout) from the event id and the statement's place. */
export function statementId(eventid: string, index: number): string {
  const hex = createHash('sha256').update(`${eventid}#${index}`).digest('hex').slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

function actor(site: string, userid: unknown) {
  return { objectType: 'Agent', account: { homePage: site, name: String(userid) } };
}

function activity(id: string, type: string, name?: unknown) {
  return {
    objectType: 'Activity',
    id,
    definition: { type, ...(typeof name === 'string' && name ? { name: { 'en-US': name } } : {}) },
  };
}

const isoTime = (seconds: unknown) => new Date(Number(seconds) * 1000).toISOString();

export function xapiStatements(record: StoredEvent, siteUrl: string): Array<Record<string, unknown>> {
  const api = `${siteUrl.replace(/\/$/, '')}/api/2.0`;
  const data = record.data as Record<string, any>;
  const base = (index: number) => ({ id: statementId(record.eventid, index), timestamp: isoTime(record.occurred_at) });
  switch (record.name) {
    case 'work_log.finished':
      return [
        {
          ...base(0),
          actor: actor(siteUrl, data.operator_userid),
          verb: VERBS.completed,
          object: activity(`${api}/guides/${data.guideid}`, ACTIVITY_TYPES.guide),
        },
      ];
    case 'course_stage.completed':
      return [
        {
          ...base(0),
          actor: actor(siteUrl, data.userid),
          verb: VERBS.completed,
          object: activity(
            `${api}/courses/${data.wikiid}/stages/${data.course_stageid}`,
            ACTIVITY_TYPES.stage,
            data.title,
          ),
          context: {
            contextActivities: { parent: [activity(`${api}/courses/${data.wikiid}`, ACTIVITY_TYPES.course)] },
          },
        },
      ];
    case 'quiz_session.submitted': {
      if (data.passed === null || data.passed === undefined) return [];
      const score =
        typeof data.score === 'number'
          ? { score: { scaled: Math.max(0, Math.min(1, data.score / 100)), raw: data.score, min: 0, max: 100 } }
          : {};
      return [
        {
          ...base(0),
          actor: actor(siteUrl, data.userid),
          verb: data.passed ? VERBS.passed : VERBS.failed,
          object: activity(`${api}/quizzes/${data.quizid}`, ACTIVITY_TYPES.quiz),
          result: { success: Boolean(data.passed), completion: true, ...score },
        },
      ];
    }
    default:
      return [];
  }
}
