import { createGroupHandler } from '../../shared/http/router.ts';
import { noticesGroup } from './notices.routes.ts';

export const handler = createGroupHandler(noticesGroup);
