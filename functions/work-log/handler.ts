import { createGroupHandler } from '../../shared/http/router.ts';
import { workLogGroup } from './work-log.routes.ts';

export const handler = createGroupHandler(workLogGroup);
