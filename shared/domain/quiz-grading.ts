/**
 * Grades a SurveyJS quiz response without survey-core (1.4 MB minified: too big for the
 * sessions function; docs/decisions/). It follows survey-core's own quiz rules exactly for
 * the question kinds import admits (functions/quiz-import checks that with survey-core and
 * records each graded question's effective `correctAnswer`):
 * - a question counts when it is visible, takes input and has a non-empty correctAnswer;
 * - the answer is first read the way survey-core loads data: a select answer that matches one
 *   of the question's visible choices (recorded at import in `choices`) becomes that choice's
 *   value, matched case-sensitively and untrimmed; checkbox and tagbox do so per element and
 *   keep elements matching no choice (survey-core 3.1.1 keeps them too);
 * - it is correct when answered and equal to correctAnswer under survey-core's comparator
 *   (Helpers.checkIfValuesEqual: case-insensitive, trimmed strings, numbers compared as
 *   numbers, "true"/"false" as booleans; checkbox and tagbox ignore order).
 * A parity test grades generated responses with survey-core and with this file.
 */

/** Question types whose grading import admits. */
export const GRADED_TYPES = [
  'radiogroup',
  'dropdown',
  'checkbox',
  'tagbox',
  'boolean',
  'text',
  'comment',
  'rating',
] as const;
export type GradedType = (typeof GRADED_TYPES)[number];

export interface GradedQuestion {
  name: string;
  /** The key of the answer in the response data (`valueName` or the name). */
  valueName: string;
  title: string;
  type: GradedType;
  correctAnswer: unknown;
  /**
   * Select kinds (radiogroup, dropdown, checkbox, tagbox): the values of the visible choices in
   * survey-core's order. Absent on quizzes imported before it was recorded: their answers are
   * graded as they come (no mapping to choice values), as they were when imported.
   */
  choices?: unknown[];
}

export interface QuestionResult {
  name: string;
  title: string;
  answered: boolean;
  correct: boolean;
}

export interface Grade {
  correct_count: number;
  question_count: number;
  /** Percent correct, two decimals. */
  score: number;
  passed: boolean;
  results: QuestionResult[];
}

function isValueObject(value: unknown): value is Record<string, unknown> {
  return value instanceof Object;
}

/** survey-core Helpers.isValueEmpty. */
export function isValueEmpty(value: unknown): boolean {
  if (Array.isArray(value) && value.length === 0) return true;
  if (value && isValueObject(value) && value.constructor === Object) {
    return Object.values(value).every(isValueEmpty);
  }
  return !value && value !== 0 && value !== false;
}

function isConvertibleToNumber(value: unknown): boolean {
  if (value === undefined || value === null || Array.isArray(value)) return false;
  try {
    // survey-core's own test: the global isNaN coerces ('abc' is NaN), Number.isNaN would not.
    // biome-ignore lint/suspicious/noGlobalIsNan: parity with survey-core's Helpers.isConvertibleToNumber
    return !isNaN(value as number);
  } catch {
    return false;
  }
}

interface CompareOptions {
  ignoreOrder: boolean;
  caseSensitive: boolean;
  trimStrings: boolean;
}

/** Grading compares like survey-core's quiz (settings.comparator: case-insensitive, trimmed). */
const GRADING: CompareOptions = { ignoreOrder: false, caseSensitive: false, trimStrings: true };
/** ItemValue.getItemByValue finds an answer's choice case-sensitively and untrimmed. */
const CHOICE_MATCH: CompareOptions = { ignoreOrder: false, caseSensitive: true, trimStrings: false };

function arraysEqual(x: unknown[], y: unknown[], options: CompareOptions): boolean {
  if (x.length !== y.length) return false;
  // survey-core sorts copies with the default (string) sort.
  const left = options.ignoreOrder ? [...x].sort() : x;
  const right = options.ignoreOrder ? [...y].sort() : y;
  return left.every((value, index) => compareValues(value, right[index], options));
}

/** survey-core Helpers.checkIfValuesEqual (no Dates or `equals` objects: answers are JSON). */
function compareValues(x: unknown, y: unknown, options: CompareOptions): boolean {
  if (x === y) return true;
  if (Array.isArray(x) && x.length === 0 && y === undefined) return true;
  if (Array.isArray(y) && y.length === 0 && x === undefined) return true;
  if ((x === undefined || x === null) && y === '') return true;
  if ((y === undefined || y === null) && x === '') return true;
  if (typeof x === 'string' && typeof y === 'string') {
    let [left, right] = [x, y];
    if (options.trimStrings) [left, right] = [left.trim(), right.trim()];
    if (!options.caseSensitive) [left, right] = [left.toLowerCase(), right.toLowerCase()];
    return left === right;
  }
  if (isConvertibleToNumber(x) && isConvertibleToNumber(y)) {
    // biome-ignore lint/correctness/useParseIntRadix: survey-core calls parseInt without a radix ('0x1A' is 26)
    if (parseInt(x as string) === parseInt(y as string) && parseFloat(x as string) === parseFloat(y as string))
      return true;
  }
  if (isValueEmpty(x) !== isValueEmpty(y)) return false;
  if ((x === true || x === false) && typeof y === 'string') return x.toString() === y.toLocaleLowerCase();
  if ((y === true || y === false) && typeof x === 'string') return y.toString() === x.toLocaleLowerCase();
  const xObject = isValueObject(x);
  const yObject = isValueObject(y);
  // eslint-disable-next-line eqeqeq
  // biome-ignore lint/suspicious/noDoubleEquals: survey-core compares scalars loosely (1 == true)
  if (!xObject && !yObject) return x == y;
  if (!xObject || !yObject) return false;
  if (Array.isArray(x) && Array.isArray(y)) return arraysEqual(x, y, options);
  const own = (object: object, key: string) => Object.hasOwn(object, key);
  for (const key in x) {
    if (!own(x, key)) continue;
    if (!own(y, key) || !compareValues(x[key], y[key], options)) return false;
  }
  for (const key in y) {
    if (own(y, key) && !own(x, key)) return false;
  }
  return true;
}

/** survey-core Helpers.checkIfValuesEqual with caseSensitive false and trimStrings true. */
export function valuesEqual(x: unknown, y: unknown, ignoreOrder = false): boolean {
  return compareValues(x, y, { ...GRADING, ignoreOrder });
}

const NO_CHOICE = Symbol('no matching choice');

/** survey-core ItemValue.getItemByValue: the first choice equal to the value (an empty one for an empty value). */
function matchingChoice(choices: unknown[], value: unknown): unknown {
  const valueIsEmpty = isValueEmpty(value);
  for (const choice of choices) {
    if (valueIsEmpty && isValueEmpty(choice)) return choice;
    if (compareValues(choice, value, CHOICE_MATCH)) return choice;
  }
  return NO_CHOICE;
}

/** QuestionSelectBase.valueFromData: a value matching a choice becomes the choice's value. */
function selectValueFromData(choices: unknown[], value: unknown): unknown {
  const choice = matchingChoice(choices, value);
  return choice === NO_CHOICE ? value : choice;
}

/**
 * QuestionCheckboxModel.valueFromData (tagbox extends it): a falsy value stays as it is, a
 * single value is mapped and wrapped, each element of an array is mapped (kept when no choice
 * matches it).
 */
function multiSelectValueFromData(choices: unknown[], value: unknown): unknown {
  if (!value) return value;
  if (!Array.isArray(value)) return [selectValueFromData(choices, value)];
  return value.map((element) => selectValueFromData(choices, element));
}

function isMultiSelect(question: GradedQuestion): boolean {
  return question.type === 'checkbox' || question.type === 'tagbox';
}

/**
 * The value a question holds after survey-core loads `data` (Question.valueFromData). Objects
 * (survey-core unwraps `{value}` and keeps comments) never get here: malformedAnswers refuses them.
 */
function questionValue(question: GradedQuestion, data: Record<string, unknown>): unknown {
  const value = data[question.valueName];
  const { choices } = question;
  if (!choices) return legacyQuestionValue(question, value);
  if (isMultiSelect(question)) return multiSelectValueFromData(choices, value);
  if (question.type === 'radiogroup' || question.type === 'dropdown') return selectValueFromData(choices, value);
  return value;
}

/** Quizzes imported before `choices` was recorded: no choice mapping; a single multi-select value is wrapped. */
function legacyQuestionValue(question: GradedQuestion, value: unknown): unknown {
  if (isMultiSelect(question) && !isValueEmpty(value) && !Array.isArray(value)) return [value];
  return value;
}

function isCorrect(question: GradedQuestion, value: unknown): boolean {
  return valuesEqual(value, question.correctAnswer, isMultiSelect(question));
}

function isScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * Answers survey-core would reshape before grading (it joins arrays given to a text question,
 * flattens nested ones ...) are refused instead: a graded answer is a string, number or boolean,
 * or for checkbox and tagbox also an array of them. Returns the names of refused answers.
 */
export function malformedAnswers(questions: GradedQuestion[], data: Record<string, unknown>): string[] {
  return questions
    .filter((question) => {
      const value = data[question.valueName];
      if (value === undefined || value === null || isScalar(value)) return false;
      return !(isMultiSelect(question) && Array.isArray(value) && value.every(isScalar));
    })
    .map((question) => question.name);
}

/** Grades a response; passes when at least `passThreshold` percent are correct. */
export function gradeResponse(
  questions: GradedQuestion[],
  data: Record<string, unknown>,
  passThreshold: number,
): Grade {
  const results = questions.map((question) => {
    const value = questionValue(question, data);
    const answered = !isValueEmpty(value);
    return { name: question.name, title: question.title, answered, correct: answered && isCorrect(question, value) };
  });
  const correct = results.filter((result) => result.correct).length;
  const total = results.length;
  return {
    correct_count: correct,
    question_count: total,
    score: total === 0 ? 100 : Math.floor((correct * 10000) / total) / 100,
    // Compared in integers so 2 of 3 against 66.67 is not a rounding question.
    passed: correct * 100 >= passThreshold * total,
    results,
  };
}
