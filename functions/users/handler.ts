import { createGroupHandler } from '../../shared/http/router.ts';
import { usersGroup } from './users.routes.ts';

export const handler = createGroupHandler(usersGroup);
