import { createGroupHandler } from '../../shared/http/router.ts';
import { commentsGroup } from './comments.routes.ts';

export const handler = createGroupHandler(commentsGroup);
