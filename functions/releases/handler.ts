import { createGroupHandler } from '../../shared/http/router.ts';
import { releasesGroup } from './releases.routes.ts';

export const handler = createGroupHandler(releasesGroup);
