import { createGroupHandler } from '../../shared/http/router.ts';
import { quizzesGroup } from './quizzes.routes.ts';

export const handler = createGroupHandler(quizzesGroup);
