import { createGroupHandler } from '../../shared/http/router.ts';
import { wikisGroup } from './wikis.routes.ts';

export const handler = createGroupHandler(wikisGroup);
