import { createGroupHandler } from '../../shared/http/router.ts';
import { externalCoursesGroup } from './external-courses.routes.ts';

export const handler = createGroupHandler(externalCoursesGroup);
