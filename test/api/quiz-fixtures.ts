/** Fixtures for the quiz API tests: real SurveyJS quizzes imported through the API. */
import { api, loginAdmin, uniqueSuffix } from '../support/api.ts';

/** Four graded questions: single choice, multiple choice, text, boolean (and one ungraded). */
export function safetyQuiz(title = `Lockout ${uniqueSuffix()}`) {
  return {
    title,
    questionsOrder: 'initial',
    pages: [
      {
        name: 'page1',
        questionsOrder: 'random',
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
            title: 'Energy sources?',
            choices: ['electric', 'hydraulic', 'paper'],
            correctAnswer: ['electric', 'hydraulic'],
          },
          { type: 'text', name: 'device', title: 'Device that holds the lock', correctAnswer: 'Hasp' },
          { type: 'boolean', name: 'verify', title: 'Verify zero energy?', correctAnswer: true },
          { type: 'comment', name: 'notes', title: 'Notes' },
        ],
      },
    ],
  };
}

export const ALL_RIGHT = { first_step: 'Notify', energy: ['hydraulic', 'electric'], device: ' hasp', verify: true };
export const HALF_RIGHT = { first_step: 'Notify', energy: ['electric'], device: 'padlock', verify: true };
export const ALL_WRONG = { first_step: 'Test', energy: ['paper'], device: 'padlock', verify: false };

export async function importQuiz(body: Record<string, unknown> = {}, token?: string) {
  const response = await api('POST', '/quizzes/import', {
    token: token ?? (await loginAdmin()),
    body: { definition: safetyQuiz(), ...body },
  });
  if (response.status !== 201) throw new Error(`importQuiz: ${response.status} ${response.text}`);
  return response.body as { quizid: number; quiz_revisionid: number; quiz_title: string; [key: string]: unknown };
}
