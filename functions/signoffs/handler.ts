import { createGroupHandler } from '../../shared/http/router.ts';
import { signoffsGroup } from './signoffs.routes.ts';

export const handler = createGroupHandler(signoffsGroup);
