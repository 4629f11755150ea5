import { createGroupHandler } from '../../shared/http/router.ts';
import { webhooksGroup } from './webhooks.routes.ts';

export const handler = createGroupHandler(webhooksGroup);
