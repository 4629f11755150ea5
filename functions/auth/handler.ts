import { createGroupHandler } from '../../shared/http/router.ts';
import { authGroup } from './auth.routes.ts';

export const handler = createGroupHandler(authGroup);
