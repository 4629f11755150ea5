import { createGroupHandler } from '../../shared/http/router.ts';
import { acknowledgementsGroup } from './acknowledgements.routes.ts';

export const handler = createGroupHandler(acknowledgementsGroup);
