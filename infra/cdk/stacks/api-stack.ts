/**
 * The HTTP API, built from the route table, in stacks of their own (decision 186): the API
 * (ApiStack), one stack per area of endpoint groups (a function per group, a route per table
 * entry on it; infra/cdk/stacks/api-areas.ts) and the fallback function on `$default` for
 * everything else (404, 405, trailing slashes).
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS } from '../../../shared/http/respond.ts';
import { API_BASE_PATH, type RouteGroup, routeUrlPath } from '../../../shared/http/route.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { ProjectFunction } from '../constructs/project-function.ts';
import { embedBundling } from '../embeds.ts';
import { functionEnvironment } from '../function-environment.ts';
import { grantAccess, grantIdempotencyRecords } from '../grants.ts';
import { functionEntry } from '../../repo-paths.ts';
import { assertDeployableRouteTable, FALLBACK_FUNCTION_NAME, routeManifest } from '../route-manifest.ts';
import { grantSearchCollection, type SearchCollection } from '../search-collection.ts';
import type { SiteSettings } from '../site-settings.ts';

/** API Gateway gives up on an HTTP API integration after 30 s; a longer function limit is moot. */
const MAX_GROUP_TIMEOUT_SECONDS = 29;
const FALLBACK_MEMORY_MB = 256;

/** One JSON object per request; every value quoted, since absent values print as `-`. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
};

/** What every function of the API gets: the table, buckets and state machines it may be granted. */
export interface ApiResources {
  settings: SiteSettings;
  table: ITableV2;
  mediaBucket: IBucket;
  modulesBucket: IBucket;
  importStateMachine: IStateMachine;
  siteExportStateMachine: IStateMachine;
  siteImportStateMachine: IStateMachine;
  alarmTopic: ITopic;
  /** The key sealing identity providers' secrets: its ARN goes to the groups that declare `secretsKey`. */
  secretsKey: ISecret;
  /** The content origin (content stack): its URL and key's ARN go to the groups declaring `contentSigningKey`. */
  content?: { url: string; signingKey: ISecret };
  /** The site's OpenSearch collection (searchEngine `opensearch`): granted to the groups that declare it. */
  searchCollection?: SearchCollection;
  /** Where a function's entry file is; tests point fixture groups at a fixture handler. */
  entryFor?: (functionName: string) => string;
}

export interface ApiStackProps extends StackProps {
  settings: SiteSettings;
  /** The whole route table: CORS preflights allow every method some route uses. */
  groups: RouteGroup[];
  alarmTopic: ITopic;
}

/**
 * The HTTP API itself: CORS, the throttled `$default` stage, access logs and the 5xx alarm.
 * Its routes and functions live in the area stacks and the fallback stack, which reference it;
 * it references none of them, so the stacks deploy in one order: this, the areas, the fallback.
 */
export class ApiStack extends Stack {
  readonly httpApi: HttpApi;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { settings, groups } = props;
    assertDeployableRouteTable(groups);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `${settings.stackPrefix}-api`,
      description: `${settings.siteName}: Training and Documentation Service API 2.0`,
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: settings.corsOrigins,
        allowHeaders: CORS_ALLOW_HEADERS,
        allowMethods: corsMethods(groups),
        maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
        exposeHeaders: CORS_EXPOSE_HEADERS,
      },
    });

    new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.throttleRateLimit, burstLimit: settings.throttleBurstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(
          new LogGroup(this, 'AccessLogs', { retention: settings.logRetentionDays }),
        ),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    addAlarm(this, 'ServerErrorsAlarm', {
      metric: this.httpApi.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      // Errors the routers catch become 500 responses, not Lambda errors: only this alarm sees
      // them. Five, not one, so a single transient failure does not wake anyone.
      threshold: 5,
      description: 'Stepwise API: 5xx responses (see the API access logs and function logs).',
      topic: props.alarmTopic,
    });

    new CfnOutput(this, 'ApiUrl', { value: `${this.httpApi.apiEndpoint}${API_BASE_PATH}` });
  }
}

export interface ApiAreaStackProps extends StackProps, ApiResources {
  httpApi: HttpApi;
  /** The groups this stack deploys. */
  groups: RouteGroup[];
  /** The whole route table, for the embeds some groups carry (the OpenAPI document). */
  allGroups: RouteGroup[];
}

/** One area's endpoint groups: a function per group, and one route per table entry on it. */
export class ApiAreaStack extends Stack {
  readonly groupFunctions: Record<string, ProjectFunction> = {};
  /** Every route of this area's groups. */
  readonly routes: Construct;

  constructor(scope: Construct, id: string, props: ApiAreaStackProps) {
    super(scope, id, props);
    const { settings, groups } = props;
    const entryFor = props.entryFor ?? functionEntry;
    const functionDefaults = apiFunctionDefaults(props);

    // A scope of their own, so no group name can collide with the stack's other construct ids.
    const groupScope = new Construct(this, 'Groups');
    for (const group of groups) {
      if ((group.timeoutSeconds ?? 0) > MAX_GROUP_TIMEOUT_SECONDS) {
        throw new Error(
          `group "${group.name}": timeoutSeconds ${group.timeoutSeconds} exceeds the API Gateway limit of ` +
            `${MAX_GROUP_TIMEOUT_SECONDS}`,
        );
      }
      const groupFunction = new ProjectFunction(groupScope, group.name, {
        ...functionDefaults,
        entry: entryFor(group.name),
        description: `Stepwise ${group.name} endpoints`,
        memoryMb: group.memoryMb,
        timeoutSeconds: group.timeoutSeconds,
        embeds: embedBundling(group.embeds ?? [], props.allGroups),
        nodeModules: group.nodeModules,
      });
      grantAccess(groupFunction, group.access, {
        ...props,
        siteTransferStateMachines: [props.siteExportStateMachine, props.siteImportStateMachine],
        mailFrom: settings.mailFrom,
        contentSigningKey: props.content?.signingKey,
      });
      // The ARN only: the function reads the key itself at cold start (shared/accounts/secrets-key.ts).
      if (group.access.secretsKey)
        groupFunction.function.addEnvironment('STEPWISE_SECRETS_KEY_ARN', props.secretsKey.secretArn);
      // The content signing key by ARN too (decision 346): the function reads it at its first signing,
      // so it is in no template and no function configuration.
      if (group.access.contentSigningKey && props.content) {
        groupFunction.function.addEnvironment('STEPWISE_CONTENT_URL', props.content.url);
        groupFunction.function.addEnvironment('STEPWISE_CONTENT_SIGNING_KEY_ARN', props.content.signingKey.secretArn);
      }
      if (group.access.searchCollection && props.searchCollection)
        grantSearchCollection(groupFunction, props.searchCollection, group.access.searchCollection, group.name);
      // Any write may carry Idempotency-Key (decision 223), except those making credentials.
      if (group.routes.some((route) => route.method !== 'GET' && !route.mintsCredentials))
        grantIdempotencyRecords(groupFunction, props.table);
      this.groupFunctions[group.name] = groupFunction;
    }

    this.routes = new Construct(this, 'Routes');
    for (const group of groups) {
      const integration = lambdaIntegration(`${group.name}-integration`, this.groupFunctions[group.name]);
      for (const route of group.routes) {
        new HttpRoute(this.routes, `${route.method} ${route.path}`, {
          httpApi: props.httpApi,
          routeKey: HttpRouteKey.with(routeUrlPath(route), HttpMethod[route.method]),
          integration,
        });
      }
    }
  }
}

export interface ApiFallbackStackProps extends StackProps, ApiResources {
  httpApi: HttpApi;
  groups: RouteGroup[];
  /** Every group's function, from the area stacks. */
  groupFunctions: Record<string, ProjectFunction>;
}

/** The `$default` route and its function: 404, 405 with `Allow`, and trailing slashes (decision 3). */
export class ApiFallbackStack extends Stack {
  readonly fallbackFunction: ProjectFunction;
  readonly defaultRoute: HttpRoute;

  constructor(scope: Construct, id: string, props: ApiFallbackStackProps) {
    super(scope, id, props);
    const entryFor = props.entryFor ?? functionEntry;
    const functionDefaults = apiFunctionDefaults(props);
    this.fallbackFunction = new ProjectFunction(this, 'Fallback', {
      ...functionDefaults,
      entry: entryFor(FALLBACK_FUNCTION_NAME),
      description: 'Stepwise fallback router ($default route)',
      memoryMb: FALLBACK_MEMORY_MB,
      timeoutSeconds: MAX_GROUP_TIMEOUT_SECONDS,
      environment: {
        ...functionDefaults.environment,
        GROUP_FUNCTIONS: this.toJsonString(
          Object.fromEntries(
            Object.entries(props.groupFunctions).map(([name, fn]) => [name, fn.function.functionName]),
          ),
        ),
      },
      embeds: embedBundling(['routeManifest'], props.groups),
    });
    // Exactly the group functions, by the unqualified ARN the fallback invokes.
    const groupFunctionArns = Object.values(props.groupFunctions).map((fn) => fn.function.functionArn);
    if (groupFunctionArns.length > 0) {
      this.fallbackFunction.function.addToRolePolicy(
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: groupFunctionArns }),
      );
    }
    this.defaultRoute = new HttpRoute(this, 'DefaultRoute', {
      httpApi: props.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: lambdaIntegration('FallbackIntegration', this.fallbackFunction),
    });
  }
}

function apiFunctionDefaults(props: ApiResources) {
  return {
    environment: functionEnvironment(props.settings, {
      ...props,
      importStateMachineArn: props.importStateMachine.stateMachineArn,
      siteExportStateMachineArn: props.siteExportStateMachine.stateMachineArn,
      siteImportStateMachineArn: props.siteImportStateMachine.stateMachineArn,
    }),
    logRetention: props.settings.logRetentionDays,
    logLevel: props.settings.logLevel,
    alarmTopic: props.alarmTopic,
  };
}

/**
 * One integration (and one invoke permission) per function for all its routes: a permission
 * per route would grow the function's resource policy past its 20 KB limit on large groups.
 */
function lambdaIntegration(id: string, target: ProjectFunction): HttpLambdaIntegration {
  return new HttpLambdaIntegration(id, target.function, { scopePermissionToRoute: false });
}

/** Every method some route uses; GET alone when there are no routes yet. */
export function corsMethods(groups: RouteGroup[]): CorsHttpMethod[] {
  const methods = [...new Set(routeManifest(groups).map((entry) => entry.method))].sort();
  return (methods.length > 0 ? methods : ['GET' as const]).map((method) => CorsHttpMethod[method]);
}
