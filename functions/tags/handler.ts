import { createGroupHandler } from '../../shared/http/router.ts';
import { tagsGroup } from './tags.routes.ts';

export const handler = createGroupHandler(tagsGroup);
