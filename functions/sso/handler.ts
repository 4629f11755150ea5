import { createGroupHandler } from '../../shared/http/router.ts';
import { ssoGroup } from './sso.routes.ts';

export const handler = createGroupHandler(ssoGroup);
