import { createGroupHandler } from '../../shared/http/router.ts';
import { glossaryGroup } from './glossary.routes.ts';

export const handler = createGroupHandler(glossaryGroup);
