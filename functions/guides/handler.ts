import { createGroupHandler } from '../../shared/http/router.ts';
import { guidesGroup } from './guides.routes.ts';

export const handler = createGroupHandler(guidesGroup);
