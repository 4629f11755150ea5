import { createGroupHandler } from '../../shared/http/router.ts';
import { siteTransferGroup } from './site-transfer.routes.ts';

export const handler = createGroupHandler(siteTransferGroup);
