/**
 * Quiz grading: real SurveyJS documents graded by shared/domain/quiz-grading.ts, and a parity
 * property: for generated responses, our grade equals survey-core's own
 * (Model.data = response; getCorrectAnswerCount / getQuizQuestionCount).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Model } from 'survey-core';
import { analyzeSurvey } from '../../shared/domain/survey-analysis.ts';
import { gradeResponse, malformedAnswers, type GradedQuestion } from '../../shared/domain/quiz-grading.ts';
import { propertyRuns } from '../support/property.ts';

const SAFETY_QUIZ = {
  title: 'Lockout/tagout basics',
  questionsOrder: 'initial',
  pages: [
    {
      name: 'page1',
      elements: [
        {
          type: 'radiogroup',
          name: 'first_step',
          title: 'What comes first?',
          choices: ['Notify', 'Isolate', 'Test'],
          correctAnswer: 'Notify',
        },
        {
          type: 'checkbox',
          name: 'energy',
          title: 'Which are energy sources?',
          choices: ['electric', 'hydraulic', 'paper'],
          correctAnswer: ['electric', 'hydraulic'],
        },
        { type: 'text', name: 'device', title: 'Name the device that holds the lock', correctAnswer: 'Hasp' },
        { type: 'boolean', name: 'verify', title: 'Verify zero energy before work?', correctAnswer: true },
        { type: 'comment', name: 'notes', title: 'Anything else?' },
      ],
    },
  ],
};

function surveyCoreGrade(definition: object, data: Record<string, unknown>) {
  const model = new Model(definition);
  model.data = data;
  return { correct: model.getCorrectAnswerCount(), total: model.getQuizQuestionCount() };
}

function ourGrade(definition: Record<string, unknown>, data: Record<string, unknown>, threshold = 100) {
  const analysis = analyzeSurvey(definition);
  expect(analysis.problems).toEqual([]);
  return gradeResponse(analysis.questions, data, threshold);
}

describe('grading real SurveyJS documents', () => {
  it('finds the four graded questions (the comment has no correctAnswer)', () => {
    const analysis = analyzeSurvey(SAFETY_QUIZ);
    expect(analysis.questions.map((question) => [question.name, question.type])).toEqual([
      ['first_step', 'radiogroup'],
      ['energy', 'checkbox'],
      ['device', 'text'],
      ['verify', 'boolean'],
    ]);
    expect(analysis.definition).toMatchObject({ questionOrder: 'initial' });
    expect(analysis.definition).not.toHaveProperty('questionsOrder');
    expect(analysis.title).toBe('Lockout/tagout basics');
  });

  it('keeps the definition order of graded questions when pages shuffle them (questionOrder random)', () => {
    const shuffled = { ...SAFETY_QUIZ, pages: [{ ...SAFETY_QUIZ.pages[0], questionOrder: 'random' }] };
    for (let run = 0; run < 5; run++) {
      expect(analyzeSurvey(shuffled).questions.map((question) => question.name)).toEqual([
        'first_step',
        'energy',
        'device',
        'verify',
      ]);
    }
  });

  it('single choice, multiple choice (any order), text (case and spaces ignored), boolean', () => {
    const all = ourGrade(SAFETY_QUIZ, {
      first_step: 'Notify',
      energy: ['hydraulic', 'electric'],
      device: '  hasp ',
      verify: true,
      notes: 'x',
    });
    expect(all).toMatchObject({ correct_count: 4, question_count: 4, score: 100, passed: true });
    const wrong = ourGrade(
      SAFETY_QUIZ,
      { first_step: 'Test', energy: ['electric'], device: 'padlock', verify: false },
      50,
    );
    expect(wrong).toMatchObject({ correct_count: 0, score: 0, passed: false });
    expect(wrong.results.map((result) => result.correct)).toEqual([false, false, false, false]);
    const partly = ourGrade(
      SAFETY_QUIZ,
      { first_step: 'Notify', energy: ['electric', 'hydraulic', 'paper'], verify: true },
      50,
    );
    expect(partly).toMatchObject({ correct_count: 2, score: 50, passed: true });
    expect(partly.results.find((result) => result.name === 'device')).toMatchObject({
      answered: false,
      correct: false,
    });
  });

  it('passes at the threshold exactly, computed without rounding', () => {
    const quiz = { elements: ['a', 'b', 'c'].map((name) => ({ type: 'boolean', name, correctAnswer: true })) };
    const twoOfThree = ourGrade(quiz, { a: true, b: true, c: false }, 66.67);
    expect(twoOfThree).toMatchObject({ correct_count: 2, score: 66.66, passed: false });
    expect(ourGrade(quiz, { a: true, b: true, c: false }, 66).passed).toBe(true);
  });

  it('matches survey-core on the real documents', () => {
    for (const data of [
      {},
      { first_step: 'notify' },
      { energy: 'electric' },
      { verify: 'true' },
      { device: 42 },
      { energy: [true, 'Electric '] },
    ]) {
      const ours = ourGrade(SAFETY_QUIZ, data);
      expect({ correct: ours.correct_count, total: ours.question_count }).toEqual(surveyCoreGrade(SAFETY_QUIZ, data));
    }
  });
});

describe('answers survey-core would reshape', () => {
  it('are refused by name: arrays for single-value questions, objects, nested arrays', () => {
    const { questions } = analyzeSurvey(SAFETY_QUIZ);
    expect(
      malformedAnswers(questions, { device: ['Hasp'], first_step: { a: 1 }, energy: [['electric']], verify: true }),
    ).toEqual(['first_step', 'energy', 'device']);
    expect(
      malformedAnswers(questions, {
        device: 'Hasp',
        first_step: 2,
        energy: 'electric',
        verify: null,
        notes: ['free', 'form'],
      }),
    ).toEqual([]);
  });
});

describe('refused definitions', () => {
  const codes = (definition: Record<string, unknown>) =>
    analyzeSurvey(definition).problems.map((problem) => problem.code);

  it('names the reason survey-core or its linter gives', () => {
    expect(codes({ elements: [{ type: 'text' }] })).toContain('requiredproperty');
    expect(
      codes({
        elements: [
          { type: 'text', name: 'q', correctAnswer: 'a' },
          { type: 'text', name: 'q' },
        ],
      }),
    ).toContain('name/duplicate');
    expect(codes({ elements: [{ type: 'text', name: 'q', correctAnswer: 'a', visibleIf: '{x} = ' }] })).toContain(
      'expression/syntax',
    );
    expect(codes({ elements: [{ type: 'radiogroup', name: 'q', choices: ['a'], correctAnswer: 'z' }] })).toContain(
      'value/not-a-choice',
    );
    expect(codes({ elements: [{ type: 'bogus', name: 'q' }] }).length).toBeGreaterThan(0);
  });

  it('refuses ungradable quizzes', () => {
    expect(codes({ elements: [{ type: 'comment', name: 'q' }] })).toEqual(['no_graded_question']);
    expect(
      codes({ elements: [{ type: 'matrix', name: 'm', rows: ['r'], columns: ['c'], correctAnswer: { r: 'c' } }] }),
    ).toEqual(['ungradable']);
    expect(
      codes({
        elements: [
          { type: 'text', name: 'x' },
          { type: 'text', name: 'q', correctAnswer: 'a', visibleIf: "{x} = 'y'" },
        ],
      }),
    ).toEqual(['ungradable']);
    expect(
      codes({
        pages: [
          { name: 'p', visibleIf: "{x} = 'y'", elements: [{ type: 'text', name: 'q', correctAnswer: 'a' }] },
          { name: 'p2', elements: [{ type: 'text', name: 'x' }] },
        ],
      }),
    ).toEqual(['ungradable']);
  });
});

// Generated quizzes over the admitted kinds, and responses mixing right, wrong and odd values.
// Choices mix values that survey-core's loose grading comparator equates but its strict choice
// matching tells apart (case, spaces, 1 / "1" / true), in various display orders.
const choicePool = ['a', 'b', 'c', 'A', ' b', 1, 2, '2', true, 'true'] as const;
const choiceValues = fc.constantFrom('a', 'b', 'c', 'A ', 'A', ' b', 1, 2, '2', true, 'true', 'none');
const choices = fc.oneof(
  fc.constant(['a', 'b', 'c', 1, 2] as unknown[]),
  fc.uniqueArray(fc.constantFrom<unknown>(...choicePool), { minLength: 2, maxLength: 6 }),
);
const choicesOrder = fc.constantFrom('none', 'asc', 'desc');
const question = fc.oneof(
  choices.chain((values) =>
    fc.record({
      type: fc.constantFrom('radiogroup', 'dropdown'),
      choices: fc.constant(values),
      choicesOrder,
      correctAnswer: fc.constantFrom(...values),
    }),
  ),
  choices.chain((values) =>
    fc.record({
      type: fc.constantFrom('checkbox', 'tagbox'),
      choices: fc.constant(values),
      choicesOrder,
      showNoneItem: fc.boolean(),
      correctAnswer: fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 }),
    }),
  ),
  fc.record({ type: fc.constant('boolean'), correctAnswer: fc.boolean() }),
  fc.record({ type: fc.constantFrom('text', 'comment'), correctAnswer: fc.constantFrom('Hasp', ' hasp', '42', 'yes') }),
  fc.record({ type: fc.constant('rating'), correctAnswer: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ type: fc.constant('text'), visible: fc.constant(false), correctAnswer: fc.constant('hidden') }),
);
const answer = fc.oneof(
  choiceValues,
  fc.uniqueArray(choiceValues, { maxLength: 4 }),
  fc.constantFrom('Hasp', 'HASP  ', ' 42', 42, 'yes', 'no', '', 3, '3', false, 'false', 'c ', 'B', 0),
);

describe('parity with survey-core', () => {
  it('grades every generated response exactly as survey-core does', () => {
    fc.assert(
      fc.property(
        fc.array(question, { minLength: 1, maxLength: 6 }),
        fc.array(fc.option(answer), { minLength: 6, maxLength: 6 }),
        (questions, answers) => {
          const definition = { elements: questions.map((q, index) => ({ ...q, name: `q${index}` })) };
          const analysis = analyzeSurvey(definition);
          if (analysis.problems.length > 0) return; // e.g. every graded question hidden
          const data = Object.fromEntries(
            answers.flatMap((value, index) => (value === null ? [] : [[`q${index}`, value]])),
          );
          if (malformedAnswers(analysis.questions, data).length > 0) return;
          const ours = gradeResponse(analysis.questions, data, 100);
          expect({ correct: ours.correct_count, total: ours.question_count }).toEqual(
            surveyCoreGrade(definition, data),
          );
        },
      ),
      { numRuns: propertyRuns(150) },
    );
  });

  // Found by the property (seed 119627391): survey-core maps true to the choice 1 when it loads
  // the data, so ["b", true] is graded as ["b", 1].
  it('reads a select answer as the choice it matches, as survey-core loads data', () => {
    const definition = {
      elements: [
        { type: 'rating', name: 'q0', correctAnswer: 1 },
        { type: 'checkbox', name: 'q1', choices: ['a', 'b', 'c', 1, 2], correctAnswer: ['b', 1] },
        { type: 'rating', name: 'q2', correctAnswer: 1 },
      ],
    };
    const data = { q1: ['b', true] };
    const ours = ourGrade(definition, data);
    expect(ours).toMatchObject({ correct_count: 1, question_count: 3 });
    expect({ correct: ours.correct_count, total: ours.question_count }).toEqual(surveyCoreGrade(definition, data));
  });

  it('records the choices a select answer is matched against, and dropdown and tagbox map like radiogroup and checkbox', () => {
    const definition = {
      elements: [
        { type: 'dropdown', name: 'd', choices: ['a', 1], correctAnswer: 1 },
        { type: 'tagbox', name: 't', choices: ['a', 'b', 1], correctAnswer: ['b', 1] },
        { type: 'radiogroup', name: 'r', choices: [{ value: 2, text: 'Two' }, 'x'], correctAnswer: 2 },
        { type: 'text', name: 'x', correctAnswer: '1' },
      ],
    };
    expect(analyzeSurvey(definition).questions.map((question) => question.choices)).toEqual([
      ['a', 1],
      ['a', 'b', 1],
      [2, 'x'],
      undefined,
    ]);
    for (const data of [
      { d: true, t: ['b', true], r: '2' },
      { d: 'true', t: 'b', x: true },
      { t: ['B', '1', 'z'] },
      { t: [true, 1] },
    ]) {
      const ours = ourGrade(definition, data);
      expect({ correct: ours.correct_count, total: ours.question_count }).toEqual(surveyCoreGrade(definition, data));
    }
    expect(ourGrade(definition, { d: true, t: ['b', true] }).correct_count).toBe(2);
  });

  it('grades quizzes imported before choices were recorded as it did then (no choice mapping)', () => {
    const legacy: GradedQuestion[] = [
      { name: 'c', valueName: 'c', title: 'c', type: 'checkbox', correctAnswer: ['b', 1] },
      { name: 'd', valueName: 'd', title: 'd', type: 'dropdown', correctAnswer: 1 },
    ];
    expect(gradeResponse(legacy, { c: ['b', true], d: true }, 100).results.map((result) => result.correct)).toEqual([
      false,
      true,
    ]);
    expect(gradeResponse(legacy, { c: 'b' }, 100).results[0]).toMatchObject({ answered: true, correct: false });
    const recorded = legacy.map((question) => ({ ...question, choices: ['a', 'b', 1] }));
    expect(gradeResponse(recorded, { c: ['b', true], d: true }, 100).results.map((result) => result.correct)).toEqual([
      true,
      true,
    ]);
  });
});
