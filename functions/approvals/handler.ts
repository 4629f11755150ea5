import { createGroupHandler } from '../../shared/http/router.ts';
import { approvalsGroup } from './approvals.routes.ts';

export const handler = createGroupHandler(approvalsGroup);
