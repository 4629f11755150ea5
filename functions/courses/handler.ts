import { createGroupHandler } from '../../shared/http/router.ts';
import { coursesGroup } from './courses.routes.ts';

export const handler = createGroupHandler(coursesGroup);
