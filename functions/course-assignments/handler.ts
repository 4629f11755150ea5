import { createGroupHandler } from '../../shared/http/router.ts';
import { courseAssignmentsGroup } from './course-assignments.routes.ts';

export const handler = createGroupHandler(courseAssignmentsGroup);
