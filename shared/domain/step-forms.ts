/**
 * Step form rules, without I/O (docs/work-log.md "Step forms", "Step data rules"): the nine
 * field types, what each field attribute means for each type, when a field has changed (a new
 * field_revisionid), and how a work-log value is checked and stored (always as a string).
 */
import { parseJsonText } from './json-text.ts';
import type { FieldProblem } from './errors.ts';

export const FIELD_TYPES = [
  'Text Input',
  'Text Area',
  'Numeric Input',
  'Checkbox',
  'Radios',
  'Select',
  'Image',
  'Video',
  'Document',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Media fields take the id of a media item of this type from the user's own library. */
export const MEDIA_FIELD_TYPES: Partial<Record<FieldType, 'GuideImage' | 'GuideVideoObject' | 'Document'>> = {
  Image: 'GuideImage',
  Video: 'GuideVideoObject',
  Document: 'Document',
};

export const MAX_LABEL_LENGTH = 255;
export const MAX_PLACEHOLDER_LENGTH = 255;
export const MAX_TEXTAREA_LENGTH = 10_000;
export const MAX_OPTIONS = 100;
export const MAX_OPTION_LENGTH = 255;
export const MAX_TEXT_INPUT_VALUE = 1_000;
export const MAX_TEXT_AREA_VALUE = 10_000;

/** What makes a field what it is; a change to any of these is a new field revision. */
export interface FieldContent {
  field_type: FieldType;
  label: string;
  /** Text Input and Numeric Input: hint text; Checkbox: "1" checked by default, else "0". */
  placeholder: string;
  /** Text Area: its default text (may hold line breaks). */
  textarea: string;
  /** Radios and Select: JSON of the array of options; null for other types. */
  options: string | null;
}

/** A field as a POST /step_forms body gives it: every attribute optional (kept from the current version). */
export interface FieldInput {
  field_guid?: string;
  field_type?: FieldType;
  label?: string;
  placeholder?: string | number | boolean | null;
  textarea?: string | null;
  options?: string | string[] | null;
}

const LINE_BREAK = /[\r\n]/;

function problem(field: string, code: string, message: string): FieldProblem {
  return { field, code, message };
}

const usesPlaceholder = (type: FieldType) => type === 'Text Input' || type === 'Numeric Input' || type === 'Checkbox';
const usesOptions = (type: FieldType) => type === 'Radios' || type === 'Select';

/** The options of a Radios/Select field, from a JSON string or an array, or the problem with them. */
function parseOptions(raw: string | string[], at: string): { options?: string[]; problem?: FieldProblem } {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    const parsed = parseJsonText(raw, at);
    if (!parsed) return { problem: problem(at, 'invalid_options', `${at} must be JSON of an array of options`) };
    value = parsed.value;
  }
  if (!Array.isArray(value) || value.length === 0)
    return { problem: problem(at, 'invalid_options', `${at} must be a non-empty array of options`) };
  if (value.length > MAX_OPTIONS)
    return { problem: problem(at, 'invalid_options', `${at} has more than ${MAX_OPTIONS} options`) };
  const options = value.map((option) => (typeof option === 'number' ? String(option) : option));
  if (
    !options.every(
      (option) =>
        typeof option === 'string' &&
        option.trim() !== '' &&
        option.length <= MAX_OPTION_LENGTH &&
        !LINE_BREAK.test(option),
    )
  ) {
    return {
      problem: problem(
        at,
        'invalid_options',
        `${at}: every option is a non-empty line of at most ${MAX_OPTION_LENGTH} characters`,
      ),
    };
  }
  if (new Set(options).size !== options.length)
    return { problem: problem(at, 'invalid_options', `${at} lists an option twice`) };
  return { options: options as string[] };
}

/** "1" or "0" from a Checkbox placeholder given as text, number or boolean. */
function checkboxDefault(raw: string | number | boolean | null | undefined): string | undefined {
  if (raw === undefined || raw === null || raw === '' || raw === false || raw === 0 || raw === '0') return '0';
  if (raw === true || raw === 1 || raw === '1') return '1';
  return undefined;
}

/**
 * The content of one field of a saved form: `input` over `current` (the field's version in the
 * current form, when it names one by field_guid). Attributes a type does not use are dropped
 * (placeholder of a Text Area, textarea of a Text Input, options of anything but Radios and
 * Select). `at` names the field in problems, e.g. "fields.2".
 */
export function fieldContent(
  input: FieldInput,
  current: FieldContent | undefined,
  at: string,
): { content?: FieldContent; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const type = input.field_type ?? current?.field_type;
  const label = input.label ?? current?.label;
  if (type === undefined)
    problems.push(
      problem(`${at}.field_type`, 'missing_field', `${at}.field_type is required: one of ${FIELD_TYPES.join(', ')}`),
    );
  if (label === undefined) problems.push(problem(`${at}.label`, 'missing_field', `${at}.label is required`));
  else if (label.trim() === '' || label.length > MAX_LABEL_LENGTH || LINE_BREAK.test(label)) {
    problems.push(
      problem(
        `${at}.label`,
        'invalid_label',
        `${at}.label is one non-empty line of at most ${MAX_LABEL_LENGTH} characters`,
      ),
    );
  }
  if (type === undefined) return { problems };

  // An attribute sent as null clears it; one left out keeps the current value.
  const pick = <K extends 'placeholder' | 'textarea' | 'options'>(key: K) =>
    key in input ? input[key] : current?.[key];

  let placeholder = '';
  if (type === 'Checkbox') {
    const value = checkboxDefault(pick('placeholder') as string | number | boolean | null | undefined);
    if (value === undefined)
      problems.push(
        problem(
          `${at}.placeholder`,
          'invalid_placeholder',
          `${at}.placeholder of a Checkbox is 1 (checked by default) or 0`,
        ),
      );
    placeholder = value ?? '0';
  } else if (usesPlaceholder(type)) {
    const raw = pick('placeholder');
    placeholder = raw === undefined || raw === null ? '' : String(raw);
    if (placeholder.length > MAX_PLACEHOLDER_LENGTH || LINE_BREAK.test(placeholder)) {
      problems.push(
        problem(
          `${at}.placeholder`,
          'invalid_placeholder',
          `${at}.placeholder is one line of at most ${MAX_PLACEHOLDER_LENGTH} characters`,
        ),
      );
    }
  }

  let textarea = '';
  if (type === 'Text Area') {
    textarea = (pick('textarea') as string | null | undefined) ?? '';
    if (textarea.length > MAX_TEXTAREA_LENGTH)
      problems.push(
        problem(`${at}.textarea`, 'too_long', `${at}.textarea has more than ${MAX_TEXTAREA_LENGTH} characters`),
      );
  }

  let options: string | null = null;
  if (usesOptions(type)) {
    const raw = pick('options') as string | string[] | null | undefined;
    if (raw === undefined || raw === null || raw === '') {
      problems.push(
        problem(
          `${at}.options`,
          'missing_field',
          `${at}.options is required for ${type} fields: JSON of an array of options`,
        ),
      );
    } else {
      const parsed = parseOptions(raw, `${at}.options`);
      if (parsed.problem) problems.push(parsed.problem);
      else options = JSON.stringify(parsed.options);
    }
  }

  if (problems.length > 0) return { problems };
  return { content: { field_type: type, label: label!, placeholder, textarea, options }, problems };
}

export function sameFieldContent(a: FieldContent, b: FieldContent): boolean {
  return (
    a.field_type === b.field_type &&
    a.label === b.label &&
    a.placeholder === b.placeholder &&
    a.textarea === b.textarea &&
    a.options === b.options
  );
}

/** The options of a stored Radios/Select field. */
export function fieldOptions(field: Pick<FieldContent, 'options'>): string[] {
  if (!field.options) return [];
  const parsed: unknown = JSON.parse(field.options);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

export type StepValue =
  | { kind: 'text'; value: string }
  /** A media item id: the caller checks that the user owns an item of this type. */
  | { kind: 'media'; itemid: number; mediaType: 'GuideImage' | 'GuideVideoObject' | 'Document' }
  | { kind: 'problem'; code: string; message: string };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Checks a work-log value against its field and gives the string it is stored and output as
 * (checkboxes "1"/"0"). Media values come back as item ids for the ownership check.
 */
export function stepValue(field: Pick<FieldContent, 'field_type' | 'options'>, raw: unknown): StepValue {
  switch (field.field_type) {
    case 'Text Input':
    case 'Text Area': {
      const value = typeof raw === 'number' ? String(raw) : raw;
      if (typeof value !== 'string') return { kind: 'problem', code: 'invalid_value', message: 'must be text' };
      if (field.field_type === 'Text Input' && LINE_BREAK.test(value))
        return { kind: 'problem', code: 'line_breaks', message: 'a Text Input value may not contain line breaks' };
      const max = field.field_type === 'Text Input' ? MAX_TEXT_INPUT_VALUE : MAX_TEXT_AREA_VALUE;
      if (value.length > max) return { kind: 'problem', code: 'too_long', message: `at most ${max} characters` };
      return { kind: 'text', value };
    }
    case 'Numeric Input': {
      if (typeof raw === 'number' && Number.isFinite(raw)) return { kind: 'text', value: String(raw) };
      if (typeof raw === 'string' && NUMBER.test(raw.trim()) && Number.isFinite(Number(raw)))
        return { kind: 'text', value: raw.trim() };
      return { kind: 'problem', code: 'not_numeric', message: 'must be a number' };
    }
    case 'Checkbox': {
      if (raw === true || raw === 1 || raw === '1' || raw === 'true') return { kind: 'text', value: '1' };
      if (raw === false || raw === 0 || raw === '0' || raw === 'false') return { kind: 'text', value: '0' };
      return { kind: 'problem', code: 'not_boolean', message: 'must be a boolean (true/false or 1/0)' };
    }
    case 'Radios':
    case 'Select': {
      const value = typeof raw === 'number' ? String(raw) : raw;
      if (typeof value !== 'string' || !fieldOptions(field).includes(value)) {
        return {
          kind: 'problem',
          code: 'not_an_option',
          message: `must be one of ${JSON.stringify(fieldOptions(field))}`,
        };
      }
      return { kind: 'text', value };
    }
    case 'Image':
    case 'Video':
    case 'Document': {
      const itemid =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^\d{1,15}$/.test(raw.trim())
            ? Number(raw.trim())
            : NaN;
      if (!Number.isSafeInteger(itemid) || itemid <= 0)
        return { kind: 'problem', code: 'invalid_media', message: 'must be the id of a media item in your library' };
      return { kind: 'media', itemid, mediaType: MEDIA_FIELD_TYPES[field.field_type]! };
    }
  }
}
