/**
 * Starts the local engines and the gateway in this process. Shared by `npm start`, the test
 * harness (through start.ts) and the benchmark.
 */
import { join } from 'node:path';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { mkdtemp, mkdir } from 'node:fs/promises';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { startDynamoDbLocal } from './dynamodb.ts';
import { localEmbeds } from './embeds.ts';

/** Methods that write nothing a polling loop reads. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface LocalStack {
  port: number;
  endpoints: { ddbEndpoint: string; s3Endpoint: string; sfnEndpoint: string };
  adminCreated: boolean;
  adminEmail: string;
  stop(): Promise<void>;
}

/**
 * Throws DataDirInUseError (before anything starts) when another live stack holds `dataDir`.
 * The lock is released by stop(); after a crash the next start reclaims it.
 */
export async function startLocalStack(options: { dataDir?: string; port: number; host: string }): Promise<LocalStack> {
  let lock: DataDirLock | undefined;
  if (options.dataDir) {
    await mkdir(options.dataDir, { recursive: true });
    lock = await lockDataDir(options.dataDir);
  }
  // The JVM boots in its own process while this one loads the code (start-up time matters).
  const dynamoStarting = startDynamoDbLocal({
    dataDir: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined,
    onProcess: (role, pid) => lock?.addChild(role, pid),
  });
  dynamoStarting.catch(() => undefined);
  const loading = Promise.all([
    import('./create-table.ts'),
    import('./s3-emulator.ts'),
    import('./sfn-local.ts'),
    import('./gateway.ts'),
    import('../../functions/routes.ts'),
    import('../../shared/http/embedded.ts'),
    import('./local-functions.ts').then(({ loadLocalFunctions }) => loadLocalFunctions()),
    import('./s3-events.ts'),
  ]);
  loading.catch(() => undefined);
  // A JVM that cannot start (a JDK too old) is said at once, not after the code has loaded.
  await Promise.race([loading, dynamoStarting]);
  const [
    { ensureTable },
    { startS3Emulator },
    { startStepFunctionsEndpoint },
    { createGateway },
    { routeGroups },
    { writeEmbedFiles, routeManifest, EMBED_DIR_ENV },
    functions,
    { s3EventDispatcher },
  ] = await loading;

  // Build-time embeds (RouteGroup.embeds): files beside a deployed bundle; here files in a folder
  // the environment names (STEPWISE_EMBED_DIR), as the text itself would be too big for it. The
  // stacks of a test run share one build (infra/local/embeds.ts, decision 354).
  const embeds = await localEmbeds({
    dataDir: options.dataDir,
    build: async (folder) => {
      const [{ buildOpenApiDocument }, { DOCS_RENDERER_SOURCE, SCORM_RUNTIME_SOURCE, buildPageClient }] =
        await Promise.all([import('../../shared/http/openapi.ts'), import('../cdk/embeds.ts')]);
      writeEmbedFiles(
        folder,
        {
          routeManifest: routeManifest(routeGroups),
          openApi: buildOpenApiDocument(routeGroups),
          pageClient: buildPageClient(),
        },
        DOCS_RENDERER_SOURCE,
        SCORM_RUNTIME_SOURCE,
      );
    },
  });
  process.env[EMBED_DIR_ENV] = embeds.folder;

  const s3Directory = options.dataDir ? join(options.dataDir, 's3') : await mkdtemp(join(tmpdir(), 'stepwise-s3-'));
  const [dynamo, s3] = await Promise.all([
    dynamoStarting,
    startS3Emulator({
      directory: s3Directory,
      buckets: [process.env.MEDIA_BUCKET!, process.env.MODULES_BUCKET!],
      // S3 event notifications -> the same handlers CDK subscribes to the buckets.
      onObjectCreated: s3EventDispatcher(await functions.objectCreatedSubscriptions(), process.env.AWS_REGION!),
    }),
  ]);
  process.env.DDB_ENDPOINT = dynamo.endpoint;
  process.env.S3_ENDPOINT = s3.endpoint;

  const sfn = await startStepFunctionsEndpoint({
    stateMachines: [
      {
        arn: process.env.MODULE_IMPORT_STATE_MACHINE_ARN!,
        ...(await functions.importStateMachine()),
        // A browser upload is awaited for 40 polls; locally 250 ms apart instead of 3-20 s.
        retryIntervalOverridesMs: { AwaitUpload: 250 },
      },
      // Site export and import: step loops, retried after 100 ms locally.
      ...(await functions.siteTransferStateMachines()).map((machine) => ({
        ...machine,
        retryIntervalOverridesMs: { ExportStep: 100, ImportStep: 100 },
      })),
    ],
  });
  process.env.SFN_ENDPOINT = sfn.endpoint;

  await ensureTable(dynamo.endpoint, process.env.TABLE_NAME!);

  // The content origin (decision 270): package files on another loopback name and port than the site's.
  // It listens before the functions load: bundled functions (verify:deploy) fix their environment,
  // STEPWISE_CONTENT_URL with it, when they load.
  const { createContentOrigin, contentOriginUrl } = await import('./content-origin.ts');
  // The SCORM runtime's host page (decision 306), named with the site's URL once the gateway listens.
  const contentFixed = new Map<string, { type: string; body: string }>();
  const contentServer = createContentOrigin(contentFixed);
  await new Promise<void>((resolve, reject) => {
    contentServer.once('error', reject);
    contentServer.listen(Number(process.env.STEPWISE_CONTENT_PORT ?? 0), options.host, () => resolve());
  });
  const contentPort = (contentServer.address() as { port: number }).port;
  process.env.STEPWISE_CONTENT_URL ??= contentOriginUrl(
    new URL(process.env.STEPWISE_SITE_URL ?? `http://${options.host}`).hostname,
    contentPort,
  );
  (await import('../../shared/config.ts')).reloadConfig();

  const { groupHandlers: handlers, fallback } = await functions.api();

  const adminEmail = process.env.STEPWISE_ADMIN_EMAIL ?? 'admin@example.com';
  const { ensureFirstAdmin } = await import('../../shared/accounts/first-admin.ts');
  const admin = await ensureFirstAdmin(adminEmail, process.env.STEPWISE_ADMIN_PASSWORD ?? 'stepwise-admin');

  // Webhooks and the event bus: the deliverer from source, or its bundles fed as the stream would feed them.
  const deliverer = await functions.deliverer();
  // The search indexer, fed by the table's stream as Lambda feeds it on AWS.
  const searchIndexer = await functions.searchIndexer();
  const { newOutboxItem } = await import('../../shared/db/entities/outbox.ts');
  const tableStream =
    searchIndexer &&
    (await (
      await import('./table-stream.ts')
    ).readTableStream({
      endpoint: dynamo.endpoint,
      region: process.env.AWS_REGION!,
      tableName: process.env.TABLE_NAME!,
      // A new outbox event wakes the deliverer, as the stream triggers the deployed one
      // (functions/webhooks/deliverer.handler.ts): it reads the outbox when there is something to send.
      handler: async (batch) => {
        if (batch.Records.some((record) => newOutboxItem(record))) deliverer.wake?.();
        return searchIndexer(batch);
      },
      intervalMs: Number(process.env.STEPWISE_SEARCH_STREAM_POLL_MS ?? 100),
      onError: (error) => console.error('The search indexer failed a stream batch; it is read again', error),
    }));

  // The notice and cmi5 abandon sweeps on timers (EventBridge rules deployed; functions/schedules.ts).
  const schedules = (await import('./schedule.ts')).startSchedules();

  const server: Server = createGateway({ groups: routeGroups, handlers, fallback });
  // What a write request wrote is read at once by the loops that poll for it, which otherwise slow to
  // a poll every half-second while they find nothing (decision 345): idle polling cost a tenth of a core.
  server.on('request', (request, response) => {
    if (READS.has(request.method ?? 'GET')) return;
    response.once('finish', () => {
      // The stream reader wakes the deliverer when the write added an event (above).
      if (tableStream) tableStream.wake();
      else deliverer.wake?.();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const { RUNTIME_HOST_PATH, runtimeHostPage } = await import('../../shared/domain/scorm-runtime-host.ts');
  contentFixed.set(RUNTIME_HOST_PATH, {
    type: 'text/html; charset=utf-8',
    body: runtimeHostPage(process.env.STEPWISE_SITE_URL ?? `http://${options.host}:${port}`),
  });

  return {
    port,
    endpoints: { ddbEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint, sfnEndpoint: sfn.endpoint },
    adminCreated: admin.created,
    adminEmail,
    stop: async () => {
      await deliverer.stop();
      await schedules.stop();
      await tableStream?.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => contentServer.close(() => resolve()));
      contentServer.closeAllConnections?.();
      await Promise.allSettled([sfn.close(), s3.close(), dynamo.stop()]);
      await functions.stop();
      await embeds.remove();
      lock?.release();
    },
  };
}
