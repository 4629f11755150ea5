/** The CDK app (cdk.json: `npx tsx infra/cdk/app.ts`). Settings: `-c stepwise:<key>=<value>`, see site-settings.ts. */
import { routeGroups } from '../../functions/routes.ts';
import { buildStepwiseApp } from './stepwise-app.ts';

const { app } = buildStepwiseApp({ groups: routeGroups });
app.synth();
