import { createGroupHandler } from '../../shared/http/router.ts';
import { mediaGroup } from './media.routes.ts';

export const handler = createGroupHandler(mediaGroup);
