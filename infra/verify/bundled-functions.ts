/**
 * The local stack's functions taken from a synthesized cloud assembly (STEPWISE_FUNCTIONS=
 * bundles): every function is its cdk.out bundle and handler export, run with the environment
 * the template gives it; the routes, the state machine definition and the S3 notification come
 * from the template too. Every AWS call a bundle makes is checked against its role policy
 * (infra/verify/iam-check.ts).
 *
 * The bundles' only local changes (documented in docs/deploy-verification.md): the engines'
 * endpoints, the site URL of the local gateway, mail to the outbox folder, and the fallback's
 * Lambda client pointed at a local Invoke endpoint.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Context, DynamoDBBatchResponse } from 'aws-lambda';
import { SDK_CLIENT_HOOK } from '../../shared/sdk-client-hook.ts';
import { routeUrlPath } from '../../shared/http/route.ts';
import type { LambdaHandler } from '../local/gateway.ts';
import type { LocalFunctions } from '../local/local-functions.ts';
import { installScopedEnvironment, runAs, type FunctionScope } from './function-scope.ts';
import { reachableActions } from './bundle-reach.ts';
import { loadBundle } from './load-bundle.ts';
import { IamLedger, iamClientHook, type StackIamFile } from './iam-check.ts';
import { presignedRequests } from './presigned-check.ts';
import { startServiceEndpoint } from './service-endpoint.ts';
import { startStreamFeed } from './stream-feed.ts';
import {
  FAKE_ARN_CONTEXT,
  readAssembly,
  type StreamSubscription,
  type SynthesizedFunction,
  type SynthesizedStateMachine,
} from './template.ts';
import { scheduledFunction, scheduledFunctionDescription } from '../../functions/schedules.ts';
import { OUTBOX_ENTITY } from '../../shared/db/entities/outbox.ts';
import { DEVELOPMENT_KEY } from '../../shared/storage/module-content.ts';

type Invoker = (event: unknown, context?: Partial<Context>) => Promise<unknown>;

const STATE_MACHINE_PRINCIPAL = 'state-machine';

/** What Lambda's event source mapping does with a stream subscriber's role: read the stream, dead-letter batches. */
const EVENT_SOURCE_MAPPING_ACTIONS = [
  'dynamodb:DescribeStream',
  'dynamodb:GetShardIterator',
  'dynamodb:GetRecords',
  'dynamodb:ListStreams',
  'sqs:SendMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
];

/** Variables the Lambda runtime sets in every function (the template does not list them). */
function runtimeEnvironment(fn: SynthesizedFunction, host: NodeJS.ProcessEnv): Record<string, string> {
  const pick = (name: string) => (host[name] !== undefined ? { [name]: host[name]! } : {});
  return {
    ...pick('PATH'),
    ...pick('HOME'),
    ...pick('TMPDIR'),
    AWS_REGION: FAKE_ARN_CONTEXT.region,
    AWS_DEFAULT_REGION: FAKE_ARN_CONTEXT.region,
    AWS_ACCESS_KEY_ID: host.AWS_ACCESS_KEY_ID ?? 'local',
    AWS_SECRET_ACCESS_KEY: host.AWS_SECRET_ACCESS_KEY ?? 'local',
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    LAMBDA_TASK_ROOT: fn.assetDir,
  };
}

/** What differs from AWS locally; everything else is the template's. */
function localOverrides(host: NodeJS.ProcessEnv, serviceEndpoint: string): Record<string, string> {
  const overrides: Record<string, string | undefined> = {
    DDB_ENDPOINT: host.DDB_ENDPOINT,
    S3_ENDPOINT: host.S3_ENDPOINT,
    SFN_ENDPOINT: host.SFN_ENDPOINT,
    // The fallback's LambdaClient (functions/fallback/lambda-invoker.ts) reaches group functions here.
    AWS_ENDPOINT_URL_LAMBDA: serviceEndpoint,
    // The deliverers' EventBridge client puts events on a local stand-in of the template's bus.
    AWS_ENDPOINT_URL_EVENTBRIDGE: serviceEndpoint,
    // The sso function reads the secrets key from a local stand-in of the template's secret.
    AWS_ENDPOINT_URL_SECRETS_MANAGER: serviceEndpoint,
    // Test time: webhook retries a thousand times sooner, receivers given less time (test/support/global-setup.ts).
    STEPWISE_WEBHOOK_DELAY_SCALE: host.STEPWISE_WEBHOOK_DELAY_SCALE,
    STEPWISE_WEBHOOK_TIMEOUT_SECONDS: host.STEPWISE_WEBHOOK_TIMEOUT_SECONDS,
    // The port of the local gateway is chosen at start; the template has the configured siteUrl.
    STEPWISE_SITE_URL: host.STEPWISE_SITE_URL,
    // The content origin is the local content server, not the template's CloudFront distribution
    // (decision 318); its signing key is read by ARN from the stand-in, which holds the local one.
    STEPWISE_CONTENT_URL: host.STEPWISE_CONTENT_URL,
    // Mail goes to files, not SES (shared/mail/mailer.ts).
    STEPWISE_OUTBOX_DIR: host.STEPWISE_OUTBOX_DIR,
    AWS_REQUEST_CHECKSUM_CALCULATION: host.AWS_REQUEST_CHECKSUM_CALCULATION,
    AWS_RESPONSE_CHECKSUM_VALIDATION: host.AWS_RESPONSE_CHECKSUM_VALIDATION,
    POWERTOOLS_METRICS_DISABLED: 'true',
    // Site export/import steps and parts are small locally, so a small site spans several.
    STEPWISE_TRANSFER_STEP_SECONDS: host.STEPWISE_TRANSFER_STEP_SECONDS,
    STEPWISE_TRANSFER_PART_BYTES: host.STEPWISE_TRANSFER_PART_BYTES,
  };
  return Object.fromEntries(
    Object.entries(overrides).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function lambdaContext(fn: SynthesizedFunction): Context {
  return {
    awsRequestId: crypto.randomUUID(),
    functionName: fn.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: fn.arn,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/${fn.functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 29000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export async function bundledFunctions(): Promise<LocalFunctions> {
  const host = { ...process.env };
  const cdkOut = resolve(host.STEPWISE_CDK_OUT ?? 'cdk.out');
  const assembly = readAssembly(cdkOut, {
    TABLE_NAME: host.TABLE_NAME!,
    MEDIA_BUCKET: host.MEDIA_BUCKET!,
    MODULES_BUCKET: host.MODULES_BUCKET!,
    MODULE_IMPORT_STATE_MACHINE_ARN: host.MODULE_IMPORT_STATE_MACHINE_ARN!,
    SITE_EXPORT_STATE_MACHINE_ARN: host.SITE_EXPORT_STATE_MACHINE_ARN!,
    SITE_IMPORT_STATE_MACHINE_ARN: host.SITE_IMPORT_STATE_MACHINE_ARN!,
  });

  installScopedEnvironment();
  const ledger = new IamLedger(assembly.bucketPolicies);
  for (const fn of assembly.functions.values()) {
    const reachable = fn.assetDir ? reachableActions(fn.bundleFile) : undefined;
    // A stream subscription's reads and its failed batches are the Lambda service's calls, made with this role.
    if (reachable && assembly.streamSubscriptions.some((subscription) => subscription.functionId === fn.id))
      for (const action of EVENT_SOURCE_MAPPING_ACTIONS) reachable.add(action);
    ledger.register({ id: fn.id, description: fn.description, statements: fn.statements, reachable });
  }
  ledger.register({
    id: STATE_MACHINE_PRINCIPAL,
    description: 'Step Functions module import state machine',
    statements: assembly.stateMachine.statements,
  });
  for (const machine of assembly.otherStateMachines) {
    ledger.register({ id: machine.arn, description: `Step Functions ${machine.arn}`, statements: machine.statements });
  }
  (globalThis as Record<string, unknown>)[SDK_CLIENT_HOOK] = iamClientHook(ledger);

  // The secret the signing functions name holds the local content server's key (decision 346).
  const contentKey = host.STEPWISE_CONTENT_SIGNING_KEY ?? DEVELOPMENT_KEY;
  const knownValues = new Map(
    [...assembly.functions.values()].flatMap((fn) => {
      const arn = fn.environment.STEPWISE_CONTENT_SIGNING_KEY_ARN;
      return arn ? [[arn, contentKey] as const] : [];
    }),
  );
  const serviceEndpoint = await startServiceEndpoint({
    findFunction: (name) => invokerByName(name),
    buses: assembly.eventBuses,
    secrets: assembly.secrets,
    knownValues,
  });
  const scopes = new Map<string, FunctionScope>();
  let feedSummary = '';
  const loaded = new Map<string, Promise<Invoker>>();

  function scopeOf(fn: SynthesizedFunction): FunctionScope {
    let scope = scopes.get(fn.id);
    if (!scope) {
      scope = {
        fn,
        env: {
          ...runtimeEnvironment(fn, host),
          ...fn.environment,
          ...localOverrides(process.env, serviceEndpoint.url),
        },
      };
      scopes.set(fn.id, scope);
    }
    return scope;
  }

  /** Imports the bundle in its function's scope (module-level code reads its environment). */
  function invoker(fn: SynthesizedFunction): Promise<Invoker> {
    let loading = loaded.get(fn.id);
    if (!loading) {
      if (!fn.assetDir)
        throw new Error(`${fn.id}: the assembly was synthesized without bundling; there is no bundle to run`);
      const scope = scopeOf(fn);
      loading = runAs(scope, async () => {
        const module = await loadBundle(fn.bundleFile);
        const handler = module[fn.handlerExport];
        if (typeof handler !== 'function')
          throw new Error(`${fn.id}: the bundle exports no function ${fn.handlerExport}`);
        return async (event: unknown, context?: Partial<Context>) => {
          const result = await runAs(scope, () => handler(event, { ...lambdaContext(fn), ...context }));
          // Presigned URLs and forms are authorized by S3 at use time, as this function's role.
          for (const permission of presignedRequests(result, FAKE_ARN_CONTEXT.partition)) {
            if (!ledger.authorize(fn.id, permission))
              console.error(
                `IAM: ${fn.description} handed out a presigned ${permission.action} its role does not allow`,
              );
          }
          return result;
        };
      });
      loaded.set(fn.id, loading);
    }
    return loading;
  }

  function invokerByName(name: string): Promise<Invoker> | undefined {
    const fn = [...assembly.functions.values()].find(
      (candidate) => candidate.functionName === name || candidate.arn === name,
    );
    return fn && invoker(fn);
  }

  const byId = (id: string) => assembly.functions.get(id)!;

  /** A state machine's definition and its task functions, each invocation checked against the machine's role. */
  function machineWithTasks(machine: SynthesizedStateMachine, principal: string) {
    const { definition, substitutions } = machine;
    const taskHandlers: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const [name, arn] of Object.entries(substitutions)) {
      const fn = [...assembly.functions.values()].find((candidate) => candidate.arn === arn);
      if (!fn) continue;
      taskHandlers[name] = async (input) => {
        // The state machine's own role must allow invoking the task function.
        if (!ledger.authorize(principal, { action: 'lambda:InvokeFunction', resource: fn.arn })) {
          throw new Error(`IAM: the state machine may not invoke ${fn.description}`);
        }
        return (await invoker(fn))(input);
      };
    }
    return { definition, substitutions, taskHandlers };
  }
  const asLambdaHandler =
    (fn: SynthesizedFunction): LambdaHandler =>
    async (event, context) =>
      (await (
        await invoker(fn)
      )(event, context)) as never;

  return {
    async objectCreatedSubscriptions() {
      return assembly.objectCreatedNotifications.map((notification) => ({
        name: byId(notification.functionId).logicalId,
        bucketName: notification.bucket,
        prefix: notification.prefix,
        handler: async () => (await invoker(byId(notification.functionId))) as never,
      }));
    },

    async importStateMachine() {
      return machineWithTasks(assembly.stateMachine, STATE_MACHINE_PRINCIPAL);
    },

    async siteTransferStateMachines() {
      return assembly.otherStateMachines.map((machine) => ({
        arn: machine.arn,
        ...machineWithTasks(machine, machine.arn),
      }));
    },

    async api() {
      const { routeGroups } = await import('../../functions/routes.ts');
      const groupHandlers = new Map<string, LambdaHandler>();
      const functionByRouteKey = new Map(assembly.routes.map((route) => [route.routeKey, route.functionId]));
      for (const group of routeGroups) {
        const targets = new Set(
          group.routes.map((route) => functionByRouteKey.get(`${route.method} ${routeUrlPath(route)}`)),
        );
        if (targets.size !== 1 || targets.has(undefined)) {
          throw new Error(
            `group ${group.name}: the synthesized routes do not send all its routes to one function (run ` +
              `the route parity test)`,
          );
        }
        groupHandlers.set(group.name, asLambdaHandler(byId([...targets][0]!)));
      }
      warnAboutSettingDrift(host, assembly.functions.values());
      const fallbackId = functionByRouteKey.get('$default');
      if (!fallbackId) throw new Error('the synthesized HTTP API has no $default route');
      // Load every bundle now: an import that fails should fail the start, not a test.
      await Promise.all([...assembly.functions.values()].map((fn) => invoker(fn)));
      return { groupHandlers, fallback: asLambdaHandler(byId(fallbackId)) };
    },

    async deliverer() {
      const [subscription, ...others] = assembly.streamSubscriptions.filter(isOutboxSubscription);
      if (!subscription || others.length > 0)
        throw new Error(
          `expected one outbox stream subscription in the assembly, found ${assembly.streamSubscriptions.length}`,
        );
      const retrySweep = scheduledFunction('RetrySweep');
      const sweeper = assembly.schedules.find(
        (schedule) => byId(schedule.functionId).description === scheduledFunctionDescription(retrySweep),
      );
      const { pendingOutboxItems } = await import('../../shared/db/entities/outbox.ts');
      const pollMs = Number(host[retrySweep.localEvery] ?? 1000);
      const streamFn = byId(subscription.functionId);
      const feed = startStreamFeed({
        subscription,
        region: FAKE_ARN_CONTEXT.region,
        // The local stack's own read (no function's): what the stream would carry.
        readNewItems: () => pendingOutboxItems(100),
        invoke: async (event) => (await (await invoker(streamFn))(event)) as DynamoDBBatchResponse | undefined,
        // The schedule's minute is test time here: ten polls (decision 141).
        sweep: sweeper && {
          invoke: async (event) => (await invoker(byId(sweeper.functionId)))(event),
          everyMs: pollMs * 10,
        },
        authorize: (action, resource) => ledger.authorize(streamFn.id, { action, resource }),
        pollMs,
        onError: (error) => console.error('verify: the stream deliverer failed', error),
      });
      return {
        async stop() {
          const summary = await feed.stop();
          const busEvents = [...serviceEndpoint.eventsByBus.values()].reduce((sum, count) => sum + count, 0);
          feedSummary =
            `Events: the stream fed ${summary.records} outbox record(s) in ${summary.batches} batch(es) to ` +
            `${streamFn.description} (${summary.retriedBatches} retried, ${summary.deadLettered} dead-lettered); ` +
            `the sweep ran ${summary.sweeps} time(s); ${busEvents} event(s) put on the bus.`;
        },
      };
    },

    async searchIndexer() {
      const subscription = assembly.streamSubscriptions.find((candidate) => !isOutboxSubscription(candidate));
      if (!subscription) return undefined;
      const indexer = byId(subscription.functionId);
      return async (event) => (await invoker(indexer))(event);
    },

    async stop() {
      await serviceEndpoint.close();
      const findings = ledger.findings();
      // One file per stack: verify:deploy merges them (a test may start stacks of its own).
      if (host.STEPWISE_IAM_REPORT_DIR)
        writeFileSync(
          join(host.STEPWISE_IAM_REPORT_DIR, `stack-${process.pid}-${randomUUID()}.json`),
          JSON.stringify({ findings, feedSummary } satisfies StackIamFile),
        );
    },
  };
}

/** The deliverer's subscription: filtered to new outbox items (the search indexer's is not). */
function isOutboxSubscription(subscription: StreamSubscription): boolean {
  return subscription.filterPatterns.some((pattern) => pattern.includes(OUTBOX_ENTITY));
}

/** Host-only variables of the local stack, not site settings. */
const HOST_ONLY =
  /^(STEPWISE_(ADMIN_\w+|IN_MEMORY|DATA_DIR|FUNCTIONS|CDK_OUT|IAM_REPORT_DIR|OUTBOX_DIR|SITE_URL|TEST_VERBOSE))$/;

/**
 * A setting the host (e.g. the test harness) runs with but the template gives the functions
 * differently means the tests ran against another configuration than was synthesized.
 */
function warnAboutSettingDrift(host: NodeJS.ProcessEnv, functions: Iterable<SynthesizedFunction>): void {
  const drift = new Set<string>();
  for (const fn of functions) {
    for (const [name, value] of Object.entries(host)) {
      if (!/^(STEPWISE_|LOG_LEVEL$)/.test(name) || HOST_ONLY.test(name)) continue;
      const deployed = fn.environment[name];
      if (deployed !== undefined && deployed !== value)
        drift.add(`${name}: host ${JSON.stringify(value)}, template ${JSON.stringify(deployed)}`);
    }
  }
  for (const line of drift)
    console.warn(
      `verify: setting differs from the synthesized template (synthesize with the matching -c stepwise:... ` +
        `context): ${line}`,
    );
}
