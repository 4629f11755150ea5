/**
 * The search indexer off the API's event loop (decision 290): on the local stack the table's
 * stream is read in the API's process, but each batch is indexed in a worker thread running the
 * same handler as the Lambda (shared/search/stream-handler.ts), so parsing, changing and
 * serializing the index, and the merges after it, never pause a request. One batch at a time,
 * in order, as Lambda's event source mapping hands them; a failed batch rejects, and the reader
 * hands it again. Unlike the Lambda, the thread merges after answering (decision 293).
 */
import { Worker } from 'node:worker_threads';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamBatchHandler } from './table-stream.ts';
import type { RebuildRequest } from '../../shared/search/stream-handler.ts';

export interface SearchIndexerThread {
  handler: StreamBatchHandler;
  stop(): Promise<void>;
}

interface Reply {
  id: number;
  error?: string;
}

/**
 * The worker's side: each message is a batch for the handler; the answer says it is searchable
 * (or why not). The merges after a batch then run in the background, one loop at a time and
 * without a time budget, so the next batch never waits for them (decision 293): they share the
 * thread's event loop, and a merge moves the head on condition like any writer.
 */
async function serve(): Promise<void> {
  const { parentPort } = await import('node:worker_threads');
  const { indexBatch, rebuild } = await import('../../shared/search/stream-handler.ts');
  let upkeep: Promise<void> | undefined;
  parentPort!.on('message', async ({ id, event }: { id: number; event: DynamoDBStreamEvent | RebuildRequest }) => {
    try {
      // An operator's rebuild, as the Lambda's entry takes it (shared/search/stream-handler.ts).
      if ('rebuild' in event && event.rebuild === true) {
        await rebuild();
        parentPort!.postMessage({ id } satisfies Reply);
        return;
      }
      const written = await indexBatch(event as DynamoDBStreamEvent);
      parentPort!.postMessage({ id } satisfies Reply);
      if (written.upkeep && !upkeep) {
        upkeep = written
          .upkeep(Number.POSITIVE_INFINITY)
          .catch((error: unknown) => console.error('search indexer thread: merges failed', error))
          .finally(() => {
            upkeep = undefined;
          });
      }
    } catch (error) {
      parentPort!.postMessage({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
}

/** Starts the thread (the engines' endpoints must be in process.env: the thread copies the environment now). */
export function startSearchIndexerThread(): SearchIndexerThread {
  // From source: tsx in the thread too (the local stack's own loader, else added).
  const needsTsx = !process.execArgv.some((arg) => arg.includes('tsx'));
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { searchIndexerThread: true },
    execArgv: [...process.execArgv, ...(needsTsx ? ['--import', 'tsx'] : [])],
  });
  worker.unref();
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let next = 0;
  const failAll = (error: Error) => {
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  };
  worker.on('message', ({ id, error }: Reply) => {
    const pending = waiting.get(id);
    waiting.delete(id);
    if (error) pending?.reject(new Error(`The search indexer thread failed a batch: ${error}`));
    else pending?.resolve();
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`The search indexer thread exited (${code})`)));
  return {
    handler: (event) =>
      new Promise<void>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, event });
      }),
    async stop() {
      await worker.terminate();
    },
  };
}

const { isMainThread, workerData } = await import('node:worker_threads');
if (!isMainThread && (workerData as { searchIndexerThread?: boolean } | null)?.searchIndexerThread) await serve();
