/**
 * SCORM attempts, without I/O (decision 271): what a commit may hold (the spec's limits, with the
 * spec's error codes), what a SCO's CMI data says about its result as the server judges it
 * (1.2: lesson_status or the raw score against the mastery score; 2004: completion and success
 * status against the completion threshold and the scaled passing score), whether the module is
 * satisfied, the entry of a launch and the total time a terminated session adds.
 *
 * CMI data is kept flattened: `{"cmi.core.lesson_status": "passed", "cmi.suspend_data": "..."}`
 * (scorm-again's flattened commit format), one map per SCO.
 */
import type { ScormItem } from './scorm-structure.ts';

export type ScormModel = 'scorm12' | 'scorm2004';
export type CmiData = Record<string, string>;

/** Characters of a value the spec guarantees (SPM); longer values are refused, never truncated. */
const LIMITS: Record<ScormModel, Array<[RegExp, number]>> = {
  scorm12: [
    [/^cmi\.suspend_data$/, 4096],
    [/^cmi\.launch_data$/, 4096],
    [/^cmi\.core\.lesson_location$/, 255],
    [/^cmi\.comments$/, 4096],
    [/^cmi\.interactions\.\d+\.student_response$/, 255],
    [/^cmi\.objectives\.\d+\.id$/, 255],
  ],
  scorm2004: [
    [/^cmi\.suspend_data$/, 64_000],
    [/^cmi\.location$/, 1000],
    [/^cmi\.learner_response$/, 4000],
    [/^cmi\.interactions\.\d+\.learner_response$/, 4000],
    [/^cmi\.interactions\.\d+\.description$/, 250],
    [/^cmi\.comments_from_learner\.\d+\.comment$/, 4000],
    [/^cmi\.objectives\.\d+\.(id|description)$/, 4000],
  ],
};

/** The longest value any element takes (2004's suspend_data); anything longer is refused whatever its name. */
export const MAX_VALUE_CHARS = 64_000;
/** A SCO's whole CMI data: well under DynamoDB's 400 KB item with several SCOs' data beside it. */
export const MAX_SCO_DATA_CHARS = 200_000;
export const MAX_ELEMENTS = 4_000;

export interface CmiProblem {
  element: string;
  /** The SCORM error code the runtime reports: 1.2 405 (incorrect data type), 2004 407 (value out of range). */
  scorm_error: number;
  message: string;
}

const ELEMENT = /^(cmi|adl)\.[A-Za-z0-9_.]{1,200}$/;

/** Every problem of a commit's CMI data for one SCO (empty: it may be kept). */
export function cmiProblems(model: ScormModel, cmi: CmiData): CmiProblem[] {
  const problems: CmiProblem[] = [];
  const typeError = model === 'scorm12' ? 405 : 406;
  const rangeError = model === 'scorm12' ? 405 : 407;
  const entries = Object.entries(cmi);
  if (entries.length > MAX_ELEMENTS)
    problems.push({ element: 'cmi', scorm_error: rangeError, message: `more than ${MAX_ELEMENTS} elements` });
  let total = 0;
  for (const [element, value] of entries) {
    total += element.length + value.length;
    if (!ELEMENT.test(element)) {
      problems.push({ element, scorm_error: model === 'scorm12' ? 401 : 401, message: 'not a data model element' });
      continue;
    }
    const limit = LIMITS[model].find(([pattern]) => pattern.test(element))?.[1] ?? MAX_VALUE_CHARS;
    if (value.length > limit)
      problems.push({
        element,
        scorm_error: rangeError,
        message: `${value.length} characters; SCORM ${model === 'scorm12' ? '1.2' : '2004'} keeps ${limit}`,
      });
  }
  if (total > MAX_SCO_DATA_CHARS)
    problems.push({ element: 'cmi', scorm_error: typeError, message: `more than ${MAX_SCO_DATA_CHARS} characters` });
  return problems;
}

export type CompletionStatus = 'completed' | 'incomplete' | 'not attempted' | 'unknown';
export type SuccessStatus = 'passed' | 'failed' | 'unknown';

export interface ScoResult {
  completion_status: CompletionStatus;
  success_status: SuccessStatus;
  score_raw: number | null;
  score_scaled: number | null;
  /** The SCO counts as done for its module. */
  satisfied: boolean;
}

function number(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/** The server's judgement of one SCO's data (the manifest's mastery values win over what the content says). */
export function scoResult(model: ScormModel, cmi: CmiData, sco: ScormItem | undefined): ScoResult {
  if (model === 'scorm12') {
    const raw = number(cmi['cmi.core.score.raw']);
    let status = cmi['cmi.core.lesson_status'] ?? 'not attempted';
    // RTE 1.2 3.4.4: with a mastery score and a raw score, the LMS sets passed or failed.
    const mastery = sco?.mastery_score ?? null;
    if (mastery !== null && raw !== null && (cmi['cmi.core.credit'] ?? 'credit') === 'credit')
      status = raw >= mastery ? 'passed' : 'failed';
    const completion: CompletionStatus =
      status === 'passed' || status === 'completed' || status === 'failed'
        ? 'completed'
        : status === 'incomplete' || status === 'browsed'
          ? 'incomplete'
          : 'not attempted';
    const success: SuccessStatus = status === 'passed' ? 'passed' : status === 'failed' ? 'failed' : 'unknown';
    return {
      completion_status: completion,
      success_status: success,
      score_raw: raw,
      score_scaled: null,
      satisfied: status === 'passed' || status === 'completed',
    };
  }
  // RTE 2004 4.2.4.1 and 4.2.22.1: the thresholds decide when both the threshold and the measure are known.
  let completion = (cmi['cmi.completion_status'] ?? 'unknown') as CompletionStatus;
  const threshold = sco?.completion_threshold;
  const progress = number(cmi['cmi.progress_measure']);
  if (threshold?.completed_by_measure && progress !== null)
    completion = progress >= threshold.min_progress_measure ? 'completed' : 'incomplete';
  let success = (cmi['cmi.success_status'] ?? 'unknown') as SuccessStatus;
  const scaled = number(cmi['cmi.score.scaled']);
  const passing = sco?.scaled_passing_score ?? null;
  if (passing !== null) success = scaled === null ? 'unknown' : scaled >= passing ? 'passed' : 'failed';
  if (!['completed', 'incomplete', 'not attempted', 'unknown'].includes(completion)) completion = 'unknown';
  if (!['passed', 'failed', 'unknown'].includes(success)) success = 'unknown';
  return {
    completion_status: completion,
    success_status: success,
    score_raw: number(cmi['cmi.score.raw']),
    score_scaled: scaled,
    // Completed, and passed where passing is judged (a failed SCO is not done).
    satisfied: completion === 'completed' && success !== 'failed' && (passing === null || success === 'passed'),
  };
}

/** A module is satisfied when every SCO of its default organization is (assets are not tracked). */
export function moduleSatisfied(scos: ScormItem[], results: Map<string, { satisfied: boolean }>): boolean {
  const tracked = scos.filter((sco) => sco.scorm_type === 'sco' && sco.launch);
  return tracked.length > 0 && tracked.every((sco) => results.get(sco.identifier)?.satisfied === true);
}

/** Seconds of a CMI timespan: 1.2 `HHHH:MM:SS.SS`, 2004 ISO 8601 `P[nY][nM][nD][T[nH][nM][nS]]`; null if unreadable. */
export function timespanSeconds(model: ScormModel, value: string | undefined): number | null {
  if (!value) return null;
  if (model === 'scorm12') {
    const match = /^(\d{2,4}):(\d{2}):(\d{2})(\.\d{1,2})?$/.exec(value);
    if (!match) return null;
    return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]) + Number(match[4] ?? 0);
  }
  const match = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,2})?)S)?)?$/.exec(value);
  if (!match || value === 'P' || value.endsWith('T')) return null;
  const [, y, mo, d, h, mi, s] = match.map((part) => Number(part ?? 0));
  return y! * 31_536_000 + mo! * 2_592_000 + d! * 86_400 + h! * 3600 + mi! * 60 + s!;
}

/** A timespan in the model's own format. */
export function formatTimespan(model: ScormModel, seconds: number): string {
  const whole = Math.floor(seconds);
  const hundredths = Math.round((seconds - whole) * 100);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  if (model === 'scorm12') {
    const frac = hundredths ? `.${String(hundredths).padStart(2, '0')}` : '';
    return `${String(h).padStart(4, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}${frac}`;
  }
  const secs = hundredths ? `${s}.${String(hundredths).padStart(2, '0')}` : String(s);
  return `PT${h}H${m}M${secs}S`;
}

/** The exit a SCO's data declares ('suspend' keeps the attempt for a resume). */
export function exitOf(model: ScormModel, cmi: CmiData): string {
  return (model === 'scorm12' ? cmi['cmi.core.exit'] : cmi['cmi.exit']) ?? '';
}

/** The entry a launch of a SCO gets: resume after a suspend, ab-initio the first time, '' otherwise (1.2 and 2004). */
export function entryFor(state: { exit: string; launched: boolean } | undefined): 'ab-initio' | 'resume' | '' {
  if (!state?.launched) return 'ab-initio';
  return state.exit === 'suspend' || state.exit === 'logout' ? 'resume' : '';
}
