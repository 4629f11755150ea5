import { createGroupHandler } from '../../shared/http/router.ts';
import { modulesGroup } from './modules.routes.ts';

export const handler = createGroupHandler(modulesGroup);
