import { createGroupHandler } from '../../shared/http/router.ts';
import { xapiGroup } from './xapi.routes.ts';

export const handler = createGroupHandler(xapiGroup);
