import { createGroupHandler } from '../../shared/http/router.ts';
import { userGuidesGroup } from './user-guides.routes.ts';

export const handler = createGroupHandler(userGuidesGroup);
