/**
 * Grades a SurveyJS quiz response without survey-core (1.4 MB minified: too big for the
 * sessions function; docs/decisions.md). It follows survey-core's own quiz rules exactly for
 * the question kinds import admits (functions/quiz-import checks that with survey-core and
 * records each graded question's effective `correctAnswer`):
 * - a question counts when it is visible, takes input and has a non-empty correctAnswer;
 * - it is correct when answered and equal to correctAnswer under survey-core's comparator
 *   (Helpers.checkIfValuesEqual: case-insensitive, trimmed strings, numbers compared as
 *   numbers, "true"/"false" as booleans; checkbox and tagbox ignore order).
 * A parity test grades generated responses with survey-core and with this file.
 */

/** Question types whose grading import admits. */
export const GRADED_TYPES = ['radiogroup', 'dropdown', 'checkbox', 'tagbox', 'boolean', 'text', 'comment', 'rating'] as const;
export type GradedType = (typeof GRADED_TYPES)[number];

export interface GradedQuestion {
  name: string;
  /** The key of the answer in the response data (`valueName` or the name). */
  valueName: string;
  title: string;
  type: GradedType;
  correctAnswer: unknown;
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
    return !isNaN(value as number);
  } catch {
    return false;
  }
}

function arraysEqual(x: unknown[], y: unknown[], ignoreOrder: boolean): boolean {
  if (x.length !== y.length) return false;
  // survey-core sorts copies with the default (string) sort.
  const left = ignoreOrder ? [...x].sort() : x;
  const right = ignoreOrder ? [...y].sort() : y;
  return left.every((value, index) => valuesEqual(value, right[index], ignoreOrder));
}

/** survey-core Helpers.checkIfValuesEqual with caseSensitive false and trimStrings true. */
export function valuesEqual(x: unknown, y: unknown, ignoreOrder = false): boolean {
  if (x === y) return true;
  if (Array.isArray(x) && x.length === 0 && y === undefined) return true;
  if (Array.isArray(y) && y.length === 0 && x === undefined) return true;
  if ((x === undefined || x === null) && y === '') return true;
  if ((y === undefined || y === null) && x === '') return true;
  if (typeof x === 'string' && typeof y === 'string') return x.trim().toLowerCase() === y.trim().toLowerCase();
  if (isConvertibleToNumber(x) && isConvertibleToNumber(y)) {
    if (parseInt(x as string) === parseInt(y as string) && parseFloat(x as string) === parseFloat(y as string)) return true;
  }
  if (isValueEmpty(x) !== isValueEmpty(y)) return false;
  if ((x === true || x === false) && typeof y === 'string') return x.toString() === y.toLocaleLowerCase();
  if ((y === true || y === false) && typeof x === 'string') return y.toString() === x.toLocaleLowerCase();
  const xObject = isValueObject(x);
  const yObject = isValueObject(y);
  // eslint-disable-next-line eqeqeq
  if (!xObject && !yObject) return x == y;
  if (!xObject || !yObject) return false;
  if (Array.isArray(x) && Array.isArray(y)) return arraysEqual(x, y, ignoreOrder);
  const own = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);
  for (const key in x) {
    if (!own(x, key)) continue;
    if (!own(y, key) || !valuesEqual(x[key], y[key], ignoreOrder)) return false;
  }
  for (const key in y) {
    if (own(y, key) && !own(x, key)) return false;
  }
  return true;
}

/**
 * The value a question holds after survey-core loads `data`: select questions keep only a
 * single value, multi-select ones wrap a single value in an array.
 */
function questionValue(question: GradedQuestion, data: Record<string, unknown>): unknown {
  const value = data[question.valueName];
  if ((question.type === 'checkbox' || question.type === 'tagbox') && !isValueEmpty(value) && !Array.isArray(value)) return [value];
  return value;
}

function isCorrect(question: GradedQuestion, value: unknown): boolean {
  const ignoreOrder = question.type === 'checkbox' || question.type === 'tagbox';
  return valuesEqual(value, question.correctAnswer, ignoreOrder);
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
      const multi = question.type === 'checkbox' || question.type === 'tagbox';
      return !(multi && Array.isArray(value) && value.every(isScalar));
    })
    .map((question) => question.name);
}

/** Grades a response; passes when at least `passThreshold` percent are correct. */
export function gradeResponse(questions: GradedQuestion[], data: Record<string, unknown>, passThreshold: number): Grade {
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
