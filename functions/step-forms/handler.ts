import { createGroupHandler } from '../../shared/http/router.ts';
import { stepFormsGroup } from './step-forms.routes.ts';

export const handler = createGroupHandler(stepFormsGroup);
