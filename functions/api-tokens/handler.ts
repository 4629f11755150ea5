import { createGroupHandler } from '../../shared/http/router.ts';
import { apiTokensGroup } from './api-tokens.routes.ts';

export const handler = createGroupHandler(apiTokensGroup);
