/**
 * Checks a SurveyJS definition with survey-core and finds its graded questions. Only the
 * quiz-import function bundles survey-core (1.4 MB minified, docs/decisions/; it imports this
 * file lazily), and the migration crawler, which finds a crawled revision's graded questions;
 * the sessions function grades with shared/domain/quiz-grading.ts from what is recorded here.
 *
 * A definition is refused (422, each reason in `errors[]`) when survey-core cannot load it
 * (wrong property types, missing names, unknown question types), when its linter finds an
 * error (duplicate names, broken expressions ...), when a correctAnswer is not among the
 * question's choices, or when grading would depend on more than the answers themselves:
 * graded questions must be of a kind survey-core grades by comparing the answer with
 * correctAnswer (GRADED_TYPES), and neither they nor their panels and pages may be shown or
 * hidden by conditions, nor take their choices from elsewhere.
 */
import { Model, type Question } from 'survey-core';
import { lintSurvey } from 'survey-core/linter';
import type { FieldProblem } from './errors.ts';
import { GRADED_TYPES, isValueEmpty, type GradedQuestion, type GradedType } from './quiz-grading.ts';

export interface SurveyAnalysis {
  /** The definition with `questionsOrder` renamed `questionOrder` (survey and pages). */
  definition: Record<string, unknown>;
  title: string | null;
  questions: GradedQuestion[];
  problems: FieldProblem[];
}

/** Linter findings that make a quiz unusable even though survey-core would load it. */
const REFUSED_RULES = new Set(['element/unknown-type', 'property/not-an-array']);

/** Properties that make a question's visibility or choices depend on answers or on the network. */
const CONDITIONAL_PROPERTIES = [
  'visibleIf',
  'choicesVisibleIf',
  'choicesFromQuestion',
  'choicesByUrl',
  'showOtherItem',
  'hasOther',
  'valueName',
];

function problem(field: string, code: string, message: string): FieldProblem {
  return { field, code, message };
}

/** Renames the deprecated `questionsOrder` on the survey and its pages. */
export function normalizeQuestionOrder(definition: Record<string, unknown>): Record<string, unknown> {
  const rename = (node: Record<string, unknown>): Record<string, unknown> => {
    if (!('questionsOrder' in node)) return node;
    const { questionsOrder, ...rest } = node;
    return 'questionOrder' in rest ? rest : { ...rest, questionOrder: questionsOrder };
  };
  const survey = rename(definition);
  if (!Array.isArray(survey.pages)) return survey;
  return {
    ...survey,
    pages: survey.pages.map((page) =>
      page && typeof page === 'object' && !Array.isArray(page) ? rename(page as Record<string, unknown>) : page,
    ),
  };
}

function localizedText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() || null;
  if (value && typeof value === 'object') {
    const texts = value as Record<string, unknown>;
    const text = texts.default ?? texts.en ?? Object.values(texts)[0];
    return typeof text === 'string' ? text.trim() || null : null;
  }
  return null;
}

/** The JSON objects a question sits in, itself first: its panels and its page. */
function containersOf(question: Question): Array<Record<string, unknown>> {
  const chain: Array<Record<string, unknown>> = [];
  let element: any = question;
  while (element && !element.isSurvey) {
    chain.push(element.toJSON());
    element = element.parent ?? element.page ?? null;
    if (element && chain.length > 40) break;
  }
  return chain;
}

function conditionalProblems(question: Question): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const [own, ...containers] = containersOf(question);
  for (const property of CONDITIONAL_PROPERTIES) {
    if (own[property] !== undefined) {
      problems.push(
        problem(
          `definition.${question.name}`,
          'ungradable',
          `Graded question "${question.name}" uses ${property}, which a graded question cannot use: its ` +
            `visibility, choices and answer must not depend on other answers`,
        ),
      );
    }
  }
  const choices = Array.isArray(own.choices) ? own.choices : [];
  if (
    choices.some(
      (choice) => choice && typeof choice === 'object' && (choice as Record<string, unknown>).visibleIf !== undefined,
    )
  ) {
    problems.push(
      problem(
        `definition.${question.name}`,
        'ungradable',
        `Graded question "${question.name}" has choices with visibleIf`,
      ),
    );
  }
  for (const container of containers) {
    if (container.visibleIf !== undefined) {
      problems.push(
        problem(
          `definition.${question.name}`,
          'ungradable',
          `Graded question "${question.name}" is inside "${String(container.name)}", which has visibleIf`,
        ),
      );
    }
  }
  return problems;
}

function loadProblems(model: Model): FieldProblem[] {
  return (model.jsonErrors ?? [])
    .filter((error) => error.type !== 'unknownproperty')
    .map((error) => problem('definition', error.type, error.message));
}

function lintProblems(definition: Record<string, unknown>): FieldProblem[] {
  return lintSurvey(definition)
    .findings.filter(
      (finding) =>
        finding.severity === 'error' ||
        REFUSED_RULES.has(finding.ruleId) ||
        (finding.ruleId === 'value/not-a-choice' && finding.path.endsWith('.correctAnswer')),
    )
    .map((finding) =>
      problem(finding.path ? `definition.${finding.path}` : 'definition', finding.ruleId, finding.message),
    );
}

/** Each element name's position in the JSON (pages, then nested panels), depth first. */
function definitionOrder(definition: Record<string, unknown>): Map<string, number> {
  const order = new Map<string, number>();
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const element = node as Record<string, unknown>;
    if (typeof element.name === 'string' && !order.has(element.name)) order.set(element.name, order.size);
    for (const key of ['pages', 'elements'])
      if (Array.isArray(element[key])) (element[key] as unknown[]).forEach(visit);
  };
  visit(definition);
  return order;
}

/** The answer key survey-core grades with (select questions drop values that are not choices). */
function effectiveCorrectAnswer(question: Question): unknown {
  return (question as unknown as { getCorrectAnswerValue(): unknown }).getCorrectAnswerValue();
}

/**
 * The choice values survey-core matches an answer against when it loads data (valueFromData):
 * all choices for radiogroup and dropdown (activeChoices), the visible ones, special items
 * included and in display order, for checkbox and tagbox. Other kinds have none.
 */
function matchableChoices(question: Question): unknown[] | undefined {
  const select = question as unknown as {
    activeChoices: Array<{ value: unknown }>;
    visibleChoices: Array<{ value: unknown }>;
  };
  const type = question.getType();
  const items =
    type === 'radiogroup' || type === 'dropdown'
      ? select.activeChoices
      : type === 'checkbox' || type === 'tagbox'
        ? select.visibleChoices
        : undefined;
  return items && JSON.parse(JSON.stringify(items.map((item) => item.value ?? null)));
}

/** Loads, checks and reads a definition; `problems` is empty when it is a usable quiz. */
export function analyzeSurvey(input: Record<string, unknown>): SurveyAnalysis {
  const definition = normalizeQuestionOrder(input);
  const title = localizedText(definition.title);
  let model: Model;
  try {
    model = new Model(definition);
  } catch (error) {
    return {
      definition,
      title,
      questions: [],
      problems: [
        problem('definition', 'invalid', `survey-core cannot load the definition: ${(error as Error).message}`),
      ],
    };
  }
  const problems = [...loadProblems(model), ...lintProblems(definition)];
  const questions: GradedQuestion[] = [];
  // Questions with a correctAnswer anywhere (also invisible ones) must be gradable...
  for (const question of model.getAllQuestions(false, false, true)) {
    if (isValueEmpty(question.correctAnswer)) continue;
    if (!(GRADED_TYPES as readonly string[]).includes(question.getType())) {
      problems.push(
        problem(
          `definition.${question.name}`,
          'ungradable',
          `Question "${question.name}" of type ${question.getType()} cannot be graded; graded types: ` +
            `${GRADED_TYPES.join(', ')}`,
        ),
      );
      continue;
    }
    problems.push(...conditionalProblems(question));
  }
  // ...and those survey-core counts (visible, with input, with an effective answer) are graded,
  // in the definition's order (a page with questionOrder "random" is shuffled by survey-core).
  const position = definitionOrder(definition);
  const graded = (model.getQuizQuestions() as Question[]).sort(
    (a, b) => (position.get(a.name) ?? 0) - (position.get(b.name) ?? 0),
  );
  for (const question of graded) {
    const choices = matchableChoices(question);
    questions.push({
      name: question.name,
      valueName: question.getValueName(),
      title: question.title,
      type: question.getType() as GradedType,
      correctAnswer: JSON.parse(JSON.stringify(effectiveCorrectAnswer(question) ?? null)),
      ...(choices && { choices }),
    });
  }
  if (problems.length === 0 && questions.length === 0) {
    problems.push(
      problem(
        'definition',
        'no_graded_question',
        'The quiz has no graded question: give at least one visible question a correctAnswer',
      ),
    );
  }
  return { definition, title, questions, problems };
}
