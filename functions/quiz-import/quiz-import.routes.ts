/**
 * POST /quizzes/import, on its own function: it is the only route that needs survey-core
 * (1.4 MB minified), so the other quiz routes stay small (docs/decisions/).
 */
import { defineGroup, route } from '../../shared/http/route.ts';
import { importQuiz } from './quiz-import.service.ts';
import { quizImportBody } from './quiz-import.schemas.ts';
import { quizDefinitionSchema } from '../../shared/views/quiz-views.ts';
import { SAMPLE_QUIZ } from './sample-quiz.ts';

export const quizImportGroup = defineGroup({
  name: 'quiz-import',
  access: { table: 'readwrite' },
  memoryMb: 512,
  routes: [
    route({
      method: 'POST',
      path: '/quizzes/import',
      auth: 'author',
      summary:
        'Creates a quiz and its first quiz revision from a SurveyJS survey definition (checked with survey-core)',
      description:
        'Body: `definition` (the SurveyJS JSON, or JSON text of it) with optional `quiz_title` (default: ' +
        'the survey title), ' +
        '`category`, `pass_threshold` (percent of graded questions, default 80), `max_attempts` (failed ' +
        'submissions before the ' +
        'quiz locks for a user; default unlimited) and `enabled` (default true). A body without ' +
        '`definition` that has `pages` ' +
        'or `elements` is taken as the definition itself. The deprecated `questionsOrder` is stored as ' +
        '`questionOrder`. ' +
        'A definition survey-core cannot load, that its linter finds errors in, or whose graded questions ' +
        'are not gradable by ' +
        'comparing the answer with `correctAnswer` answers 422 with every reason in `errors`.',
      status: 201,
      body: quizImportBody,
      example: { definition: SAMPLE_QUIZ, category: 'Safety', pass_threshold: 75, max_attempts: 3 },
      response: quizDefinitionSchema,
      handler: ({ caller, body }) => importQuiz(caller, body),
    }),
  ],
});
