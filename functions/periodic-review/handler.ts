import { createGroupHandler } from '../../shared/http/router.ts';
import { periodicReviewGroup } from './periodic-review.routes.ts';

export const handler = createGroupHandler(periodicReviewGroup);
