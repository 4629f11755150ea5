/**
 * Rules of guides and steps that need no I/O: line bullets and indentation, difficulty values,
 * the guide flag catalogue, default titles and the human-readable time estimate
 * (docs/wire-fidelity.md §1.7, §2.5, §2.6).
 */
import { ValidationError } from './errors.ts';

/** Bullet colours and icons of step lines; `bullet_styleid` n (1-based) names BULLETS[n - 1]. */
export const BULLETS = [
  'black',
  'red',
  'orange',
  'yellow',
  'green',
  'blue',
  'light_blue',
  'violet',
  'icon_note',
  'icon_caution',
  'icon_reminder',
] as const;
export type Bullet = (typeof BULLETS)[number];

export const DIFFICULTIES = ['Very easy', 'Easy', 'Moderate', 'Difficult', 'Very difficult'] as const;

export const MAX_LINES_PER_STEP = 8;
export const MAX_LINE_LEVEL = 2;
export const MAX_INTRODUCTION_LINES = 50;

/** Flags a guide may carry; Admins set them (GUIDE_STARRED puts a guide on GET /guides/featured). */
export const GUIDE_FLAGS: Record<string, { title: string; text: string }> = {
  GUIDE_STARRED: { title: 'Featured guide', text: 'This guide is featured.' },
  GUIDE_USER_CONTRIBUTED: {
    title: 'User-contributed guide',
    text: 'This guide was written by a member of the community.',
  },
  GUIDE_INCOMPLETE: { title: 'Incomplete guide', text: 'This guide is not finished yet.' },
  GUIDE_NEEDS_REVIEW: { title: 'Needs review', text: 'This guide should be reviewed before use.' },
};
export const FEATURED_FLAG = 'GUIDE_STARRED';

export function flagView(flagid: string) {
  return { flagid, ...(GUIDE_FLAGS[flagid] ?? { title: flagid, text: '' }) };
}

/** The 422 of a guide type outside the site's list, worded as the real service words it. */
export function assertGuideType(type: string, allowed: string[]): void {
  if (allowed.includes(type)) return;
  const message = `Invalid guide type. Got ${type} Was expecting one of: ${allowed.join(', ')}.`;
  throw new ValidationError(message, [{ field: 'type', code: 'invalid_value', message }]);
}

export function assertKnownFlags(flags: string[]): void {
  const unknown = flags.filter((flag) => !(flag in GUIDE_FLAGS));
  if (unknown.length > 0) {
    throw ValidationError.field(
      'flags',
      'invalid_value',
      `Unknown flag ${unknown.join(', ')}; known flags: ${Object.keys(GUIDE_FLAGS).join(', ')}`,
    );
  }
}

/** A line as clients write it: `text`, integer `level`, and `bullet` or `bullet_styleid`. */
export interface LineInput {
  text: string;
  level: number;
  bullet?: string;
  bullet_styleid?: number;
  lineid?: number;
}

/**
 * Checks a step's lines: 1–8 lines, the first at level 0, each at most one level deeper than
 * the line before and never deeper than 2, each with a known bullet. Returns the bullets.
 */
export function checkLines(lines: LineInput[], field = 'lines'): Bullet[] {
  if (lines.length < 1 || lines.length > MAX_LINES_PER_STEP) {
    throw ValidationError.field(field, 'invalid_length', `A step has 1 to ${MAX_LINES_PER_STEP} lines`);
  }
  const bullets: Bullet[] = [];
  lines.forEach((line, index) => {
    const previous = index === 0 ? -1 : lines[index - 1].level;
    if (line.level < 0 || line.level > MAX_LINE_LEVEL || line.level > previous + 1) {
      throw new ValidationError('Invalid line indentation', [
        { field: `${field}.${index}.level`, code: 'invalid_indentation', message: 'Invalid line indentation' },
      ]);
    }
    const bullet = line.bullet ?? (line.bullet_styleid !== undefined ? BULLETS[line.bullet_styleid - 1] : undefined);
    if (bullet === undefined || !(BULLETS as readonly string[]).includes(bullet)) {
      const given = line.bullet ?? line.bullet_styleid;
      const message =
        given === undefined
          ? 'bullet or bullet_styleid is required'
          : `Unknown bullet ${given}; one of ${BULLETS.join(', ')} (bullet_styleid 1–${BULLETS.length})`;
      throw new ValidationError(message, [
        { field: `${field}.${index}.bullet`, code: given === undefined ? 'missing_field' : 'invalid_value', message },
      ]);
    }
    bullets.push(bullet as Bullet);
  });
  return bullets;
}

function titleCase(text: string): string {
  return text.replace(/(^|[\s-])([a-z])/g, (_, separator: string, letter: string) => separator + letter.toUpperCase());
}

/** The title of a guide created without one: category, subject and type, e.g. "Printer Nozzle How-To". */
export function defaultGuideTitle(type: string, category: string, subject: string): string {
  return [category, subject, titleCase(type)].filter((part) => part.trim().length > 0).join(' ');
}

function duration(seconds: number): { value: number; unit: string } {
  if (seconds % 86400 === 0) return { value: seconds / 86400, unit: 'day' };
  if (seconds % 3600 === 0) return { value: seconds / 3600, unit: 'hour' };
  return { value: Math.max(1, Math.round(seconds / 60)), unit: 'minute' };
}

const plural = (value: number, unit: string) => `${value} ${unit}${value === 1 ? '' : 's'}`;

/** "No estimate", "30 minutes", "1 - 2 hours", "45 minutes - 2 hours" from seconds. */
export function timeRequiredText(minSeconds: number, maxSeconds: number): string {
  if (minSeconds <= 0 && maxSeconds <= 0) return 'No estimate';
  const low = duration(minSeconds > 0 ? minSeconds : maxSeconds);
  const high = duration(maxSeconds > 0 ? maxSeconds : minSeconds);
  if (low.value === high.value && low.unit === high.unit) return plural(low.value, low.unit);
  if (low.unit === high.unit) return `${low.value} - ${plural(high.value, high.unit)}`;
  return `${plural(low.value, low.unit)} - ${plural(high.value, high.unit)}`;
}
