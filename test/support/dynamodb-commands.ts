/**
 * Counts the DynamoDB commands this process sends: a middleware offered to every SDK client made
 * after `countDynamoDbCommands()` through the SDK client hook (shared/sdk-client-hook.ts), below
 * the retry middleware, so every attempt is one entry (a round trip). Used by the round-trip tests
 * and the bench's round-trip child. Install it before any client exists.
 */
import { SDK_CLIENT_HOOK } from '../../shared/sdk-client-hook.ts';

interface Middleware {
  middlewareStack: { add(middleware: unknown, options: Record<string, unknown>): void };
}

export interface DynamoDbCommands {
  /** The commands `run` sends (`GetItem`, `BatchGetItem` ...), in order. */
  during<T>(run: () => Promise<T>): Promise<{ commands: string[]; result: T }>;
  /** Takes the hook away (clients made before keep counting into nothing new). */
  uninstall(): void;
}

/** `counts(input)`: whether a command with this input is counted (default: every one). */
export function countDynamoDbCommands(counts: (input: unknown) => boolean = () => true): DynamoDbCommands {
  let sent: string[] = [];
  (globalThis as Record<string, unknown>)[SDK_CLIENT_HOOK] = (client: Middleware) =>
    client.middlewareStack.add(
      (next: (args: { input?: unknown }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) =>
        (args: { input?: unknown }) => {
          if (context.clientName === 'DynamoDBClient' && counts(args.input))
            sent.push(String(context.commandName).replace(/Command$/, ''));
          return next(args);
        },
      { step: 'deserialize', name: 'countRoundTrips' },
    );
  return {
    async during(run) {
      sent = [];
      const result = await run();
      return { commands: [...sent], result };
    },
    uninstall() {
      delete (globalThis as Record<string, unknown>)[SDK_CLIENT_HOOK];
    },
  };
}
