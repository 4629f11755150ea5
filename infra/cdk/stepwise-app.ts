/**
 * Builds the whole app: the five stacks, their nag acknowledgements and the AwsSolutions
 * checks. `infra/cdk/app.ts` (what `cdk synth` runs) and the infra tests both call this, so the
 * tests check exactly what gets deployed.
 */
import { Annotations, App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { RouteGroup } from '../../shared/http/route.ts';
import { FEATURE_FLAGS } from './feature-flags.ts';
import { acknowledgeNagFindings, type StepwiseStacks } from './nag-acknowledgements.ts';
import { parseSiteSettings, readSiteSettings, type SiteSettings } from './site-settings.ts';
import type { ProjectFunction } from './constructs/project-function.ts';
import { areaOfGroup } from './stacks/api-areas.ts';
import { ApiAreaStack, ApiFallbackStack, ApiStack } from './stacks/api-stack.ts';
import { SiteStack } from './stacks/site-stack.ts';
import { ContentStack } from './stacks/content-stack.ts';
import { EventsStack } from './stacks/events-stack.ts';
import { MonitoringStack } from './stacks/monitoring-stack.ts';
import { PipelineStack } from './stacks/pipeline-stack.ts';
import { StatefulStack } from './stacks/stateful-stack.ts';

export interface StepwiseAppOptions {
  /** The route table; the real one is functions/routes.ts. */
  groups: RouteGroup[];
  /** Extra context, e.g. `stepwise:*` settings in tests (the CLI passes its own via env). */
  context?: Record<string, unknown>;
  /** esbuild bundling of every function; tests turn it off to stay fast. */
  bundling?: boolean;
  /** Run the AwsSolutions checks at synth. */
  nag?: boolean;
  /**
   * CDK's built-in CloudFormation template validation (a WebAssembly linter, about 2 s to load
   * once per process). On for `cdk synth`; tests that do not look for its findings skip it.
   */
  cloudFormationValidation?: boolean;
  entryFor?: (functionName: string) => string;
  outdir?: string;
}

export interface StepwiseApp extends StepwiseStacks {
  app: App;
  settings: SiteSettings;
}

export function buildStepwiseApp(options: StepwiseAppOptions): StepwiseApp {
  const app = new App({
    outdir: options.outdir,
    builtinCloudFormationValidation: options.cloudFormationValidation ?? true,
    context: {
      ...FEATURE_FLAGS,
      ...(options.bundling === false ? { 'aws:cdk:bundling-stacks': [] } : {}),
      ...options.context,
    },
  });
  const settings = readSiteSettings(app.node);
  const prefix = settings.stackPrefix;

  // No `env`: the stacks are environment-agnostic and deploy to the account and region of the
  // credentials `cdk deploy` runs with. Synth needs neither (no lookups), so it works offline.
  const stateful = new StatefulStack(app, `${prefix}-Stateful`, {
    settings,
    description: 'Stepwise data: DynamoDB table, media and modules buckets, alarm topic',
    terminationProtection: true,
  });
  const pipeline = new PipelineStack(app, `${prefix}-Pipeline`, {
    settings,
    description: 'Stepwise module import, site export and site import state machines and their task functions',
    table: stateful.table,
    mediaBucket: stateful.mediaBucket,
    modulesBucket: stateful.modulesBucket,
    alarmTopic: stateful.alarmTopic,
  });
  const content = new ContentStack(app, `${prefix}-ContentOrigin`, {
    settings,
    description: 'Stepwise module content origin: a CloudFront distribution of its own with the launch-token check',
    modulesBucket: stateful.modulesBucket,
  });
  const apiResources = {
    settings,
    table: stateful.table,
    mediaBucket: stateful.mediaBucket,
    modulesBucket: stateful.modulesBucket,
    importStateMachine: pipeline.importStateMachine,
    siteExportStateMachine: pipeline.siteExportStateMachine,
    siteImportStateMachine: pipeline.siteImportStateMachine,
    alarmTopic: stateful.alarmTopic,
    secretsKey: stateful.secretsKey,
    searchCollection: stateful.searchCollection,
    content: { url: content.contentUrl, signingKey: content.signingKey },
    entryFor: options.entryFor,
  };
  const api = new ApiStack(app, `${prefix}-Api`, {
    settings,
    description: 'Stepwise HTTP API: CORS, stage, access logs',
    groups: options.groups,
    alarmTopic: stateful.alarmTopic,
  });
  const apiAreas: ApiAreaStack[] = [];
  const groupFunctions: Record<string, ProjectFunction> = {};
  for (const [area, groups] of groupsByArea(options.groups)) {
    const areaStack = new ApiAreaStack(app, `${prefix}-Api-${area}`, {
      ...apiResources,
      description: `Stepwise HTTP API, ${area}: ${groups.map((group) => group.name).join(', ')}`,
      httpApi: api.httpApi,
      groups,
      allGroups: options.groups,
    });
    apiAreas.push(areaStack);
    Object.assign(groupFunctions, areaStack.groupFunctions);
  }
  const apiFallback = new ApiFallbackStack(app, `${prefix}-Api-Fallback`, {
    ...apiResources,
    description: 'Stepwise HTTP API: the $default route and its fallback function',
    httpApi: api.httpApi,
    groups: options.groups,
    groupFunctions,
  });
  const site = new SiteStack(app, `${prefix}-Site`, {
    settings,
    description: 'Stepwise site entry: one CloudFront distribution for the site and its API',
    httpApi: api.httpApi,
    mediaBucket: stateful.mediaBucket,
  });
  const events = new EventsStack(app, `${prefix}-Events`, {
    settings,
    description: 'Stepwise events: the EventBridge bus and the webhook deliverer',
    table: stateful.table,
    mediaBucket: stateful.mediaBucket,
    modulesBucket: stateful.modulesBucket,
    alarmTopic: stateful.alarmTopic,
    searchCollection: stateful.searchCollection,
  });
  const monitoring = new MonitoringStack(app, `${prefix}-Monitoring`, {
    description: 'Stepwise monitoring: a Synthetics canary on GET /api/2.0/health and its alarm',
    httpApi: api.httpApi,
    alarmTopic: stateful.alarmTopic,
  });
  Tags.of(app).add('stepwise:site', prefix);
  warnAboutLocalDefaults(api, settings);

  const stacks = { stateful, pipeline, api, apiAreas, apiFallback, groupFunctions, site, content, events, monitoring };
  acknowledgeNagFindings(stacks);
  if (options.nag !== false) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, settings, ...stacks };
}

/** Settings whose local default is wrong for any real site: printed by `cdk synth` and `cdk deploy`. */
function warnAboutLocalDefaults(api: ApiStack, settings: SiteSettings): void {
  const defaults = parseSiteSettings({});
  for (const key of ['siteUrl', 'mailFrom'] as const) {
    if (settings[key] === defaults[key]) {
      Annotations.of(api).addWarningV2(
        `stepwise:${key}`,
        `stepwise:${key} is still the local default (${defaults[key]}); set it with -c stepwise:${key}=... ` +
          `(docs/operations.md).`,
      );
    }
  }
}

/** The route table's groups by area, areas in first-seen order so stack order is stable. */
function groupsByArea(groups: RouteGroup[]): Map<string, RouteGroup[]> {
  const byArea = new Map<string, RouteGroup[]>();
  for (const group of groups) {
    const area = areaOfGroup(group.name);
    byArea.set(area, [...(byArea.get(area) ?? []), group]);
  }
  return byArea;
}
