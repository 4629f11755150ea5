import { createGroupHandler } from '../../shared/http/router.ts';
import { searchGroup } from './search.routes.ts';

export const handler = createGroupHandler(searchGroup);
