/**
 * Where the local stack gets the code it runs. Two sources serve the same gateway, S3 events
 * and Step Functions runner:
 * - the TypeScript handler modules (default: `npm start`, tests), loaded through tsx;
 * - the synthesized bundles in cdk.out (STEPWISE_FUNCTIONS=bundles, `npm run verify:deploy`),
 *   each with its environment and IAM role from the template (infra/verify/bundled-functions.ts).
 */
import type { LambdaHandler } from './gateway.ts';
import type { S3EventHandler } from './s3-events.ts';
import type { TaskHandler } from './sfn-local-definition.ts';
import type { StreamBatchHandler } from './table-stream.ts';

export interface ObjectCreatedSubscription {
  name: string;
  bucketName: string;
  prefix: string;
  handler: () => Promise<S3EventHandler>;
}

export interface LocalFunctions {
  /** Subscriptions to objects created in the buckets (S3 event notifications). */
  objectCreatedSubscriptions(): Promise<ObjectCreatedSubscription[]>;
  /** The import state machine: definition, placeholder values and one handler per task function. */
  importStateMachine(): Promise<{
    definition: object;
    substitutions: Record<string, string>;
    taskHandlers: Record<string, TaskHandler>;
  }>;
  /** The site export and import state machines (functions/pipeline/site-transfer.definition.ts), with their ARNs. */
  siteTransferStateMachines(): Promise<
    Array<{
      arn: string;
      definition: object;
      substitutions: Record<string, string>;
      taskHandlers: Record<string, TaskHandler>;
    }>
  >;
  /** Called once the engines' endpoints are in process.env: the route groups' handlers and the fallback. */
  api(): Promise<{ groupHandlers: Map<string, LambdaHandler>; fallback: LambdaHandler }>;
  /**
   * Starts the events deliverer (webhooks, the bus); called once the API and its engines run. `wake`,
   * where the deliverer has it, reads the outbox now (after a write request).
   */
  deliverer(): Promise<{ stop(): Promise<void>; wake?(): void }>;
  /** The search indexer: the handler the table's stream feeds (infra/local/table-stream.ts), or none. */
  searchIndexer(): Promise<StreamBatchHandler | undefined>;
  stop(): Promise<void>;
}

export async function loadLocalFunctions(): Promise<LocalFunctions> {
  const source = process.env.STEPWISE_FUNCTIONS ?? 'sources';
  if (source === 'bundles') return (await import('../verify/bundled-functions.ts')).bundledFunctions();
  if (source !== 'sources') throw new Error(`STEPWISE_FUNCTIONS must be "sources" or "bundles", not "${source}"`);
  return sourceFunctions();
}

/** The TypeScript modules, as `npm start` has always run them. */
function sourceFunctions(): LocalFunctions {
  let indexerThread: { stop(): Promise<void> } | undefined;
  return {
    async objectCreatedSubscriptions() {
      const { objectCreatedTriggers } = await import('../../functions/pipeline/triggers.ts');
      return objectCreatedTriggers.map((trigger) => ({
        name: trigger.name,
        bucketName: trigger.bucket === 'media' ? process.env.MEDIA_BUCKET! : process.env.MODULES_BUCKET!,
        prefix: trigger.prefix,
        handler: async () => (await import(`../../${trigger.entry}`))[trigger.exportName],
      }));
    },
    async importStateMachine() {
      const pipeline = await import('../../functions/pipeline/module-import.definition.ts');
      const taskHandlers: Record<string, TaskHandler> = {};
      for (const task of pipeline.moduleImportTasks) {
        taskHandlers[task.substitution] = (await import(`../../${task.entry}`))[task.exportName];
      }
      return { definition: pipeline.moduleImportDefinition, substitutions: {}, taskHandlers };
    },
    async siteTransferStateMachines() {
      const transfer = await import('../../functions/pipeline/site-transfer.definition.ts');
      const machine = async (arn: string, definition: object, tasks: typeof transfer.siteExportTasks) => {
        const taskHandlers: Record<string, TaskHandler> = {};
        for (const task of tasks)
          taskHandlers[task.substitution] = (await import(`../../${task.entry}`))[task.exportName];
        return { arn, definition, substitutions: {}, taskHandlers };
      };
      return [
        await machine(
          process.env.SITE_EXPORT_STATE_MACHINE_ARN!,
          transfer.siteExportDefinition,
          transfer.siteExportTasks,
        ),
        await machine(
          process.env.SITE_IMPORT_STATE_MACHINE_ARN!,
          transfer.siteImportDefinition,
          transfer.siteImportTasks,
        ),
      ];
    },
    async api() {
      const { routeGroups } = await import('../../functions/routes.ts');
      const groupHandlers = new Map<string, LambdaHandler>();
      await Promise.all(
        routeGroups.map(async (group) => {
          groupHandlers.set(group.name, (await import(`../../functions/${group.name}/handler.ts`)).handler);
        }),
      );
      const { createFallback } = await import('../../functions/fallback/fallback.ts');
      const { embeddedRouteManifest } = await import('../../shared/http/embedded.ts');
      const fallback = createFallback(
        embeddedRouteManifest(),
        async (group, event) => (await groupHandlers.get(group)!(event, {} as never)) as never,
      );
      return { groupHandlers, fallback };
    },
    async deliverer() {
      // The same deliverer code as on AWS, polling the outbox in-process: the stream's work and the
      // retry sweep's (functions/schedules.ts) in each round.
      const { scheduledFunction } = await import('../../functions/schedules.ts');
      const { config } = await import('../../shared/config.ts');
      const { startDeliverer } = await import('../../shared/events/deliverer.ts');
      return startDeliverer(config()[scheduledFunction('RetrySweep').localEvery]);
    },
    async searchIndexer() {
      // In a worker thread: indexing never pauses the API's requests (decision 290).
      const thread = (await import('./search-indexer-thread.ts')).startSearchIndexerThread();
      indexerThread = thread;
      return thread.handler;
    },
    async stop() {
      await indexerThread?.stop();
    },
  };
}
