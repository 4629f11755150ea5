/**
 * A seam for hosts that run the deployed bundles (infra/verify): every AWS SDK client the
 * shared factories create is offered to a hook on globalThis, which may add middleware (the
 * IAM check of `npm run verify:deploy`). A bundle carries its own copy of this module and of
 * the SDK, so a global is the one thing every copy can see. In Lambda no hook is set and this
 * costs one property read per client created. With tracing on (shared/observability/tracing.ts)
 * the client is also captured by the X-Ray tracer.
 */
import { traceClient } from './observability/tracing.ts';

export const SDK_CLIENT_HOOK = '__stepwiseSdkClientHook';

interface HookableClient {
  middlewareStack: { add(middleware: unknown, options: Record<string, unknown>): void };
}

export function offerClientToHook<T extends HookableClient>(client: T): T {
  const hook = (globalThis as Record<string, unknown>)[SDK_CLIENT_HOOK];
  if (typeof hook === 'function') hook(client);
  return traceClient(client);
}
