import { createGroupHandler } from '../../shared/http/router.ts';
import { teamsGroup } from './teams.routes.ts';

export const handler = createGroupHandler(teamsGroup);
