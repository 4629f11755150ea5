import { createGroupHandler } from '../../shared/http/router.ts';
import { qualificationsGroup } from './qualifications.routes.ts';

export const handler = createGroupHandler(qualificationsGroup);
