import { createGroupHandler } from '../../shared/http/router.ts';
import { quizImportGroup } from './quiz-import.routes.ts';

export const handler = createGroupHandler(quizImportGroup);
