import { createGroupHandler } from '../../shared/http/router.ts';
import { scimGroup } from './scim.routes.ts';

export const handler = createGroupHandler(scimGroup);
