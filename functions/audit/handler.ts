import { createGroupHandler } from '../../shared/http/router.ts';
import { auditGroup } from './audit.routes.ts';

export const handler = createGroupHandler(auditGroup);
