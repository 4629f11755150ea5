import { createGroupHandler } from '../../shared/http/router.ts';
import { docsGroup } from './docs.routes.ts';

export const handler = createGroupHandler(docsGroup);
