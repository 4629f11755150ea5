import { createGroupHandler } from '../../shared/http/router.ts';
import { viewHistoryGroup } from './view-history.routes.ts';

export const handler = createGroupHandler(viewHistoryGroup);
