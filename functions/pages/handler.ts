import { createGroupHandler } from '../../shared/http/router.ts';
import { pagesGroup } from './pages.routes.ts';

export const handler = createGroupHandler(pagesGroup);
