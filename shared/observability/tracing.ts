/**
 * X-Ray tracing behind a setting (STEPWISE_TRACING; on by default on AWS, off locally:
 * shared/config.ts tracingEnabled()). The Powertools tracer is a side bundle (xray-tracer.ts)
 * loaded by the router's first request when tracing is on; until then, and whenever it is off,
 * clients are not wrapped and nothing of X-Ray runs. Its async-context tracking is the cost
 * decision 159 removed for the request cache: `npm run bench` reports the handler's CPU with it
 * off and on (decision 184).
 */
import type middy from '@middy/core';
import { tracingEnabled } from '../config.ts';

type TracerModule = typeof import('./xray-tracer.ts');

/**
 * The loaded tracer sits on globalThis: a side bundle (the S3 operations) carries its own copy of
 * this module, and its clients must be captured by the tracer the main bundle loaded.
 */
const TRACER_KEY = '__stepwiseTracer';
const slot = globalThis as { [TRACER_KEY]?: TracerModule };
let loading: Promise<TracerModule | undefined> | undefined;

/** Loads the tracer once when tracing is on (before any client is created by a handler). */
export function loadTracing(): Promise<TracerModule | undefined> {
  loading ??= tracingEnabled()
    ? import('#xray-tracer').then((module) => {
        slot[TRACER_KEY] = module;
        return module;
      })
    : Promise.resolve(undefined);
  return loading;
}

/** `client`, captured by the tracer when it is loaded (called by every client factory). */
export function traceClient<T>(client: T): T {
  const tracer = slot[TRACER_KEY];
  return tracer ? tracer.captureClient(client) : client;
}

/** Middy middleware: the tracer's handler subsegment when tracing is on, nothing otherwise. */
export function tracing<E, R>(): middy.MiddlewareObj<E, R> {
  const middleware = () => slot[TRACER_KEY]?.handlerMiddleware as middy.MiddlewareObj<E, R> | undefined;
  return {
    before: async (request) => {
      await loadTracing();
      await middleware()?.before?.(request);
    },
    after: async (request) => {
      await middleware()?.after?.(request);
    },
    onError: async (request) => {
      await middleware()?.onError?.(request);
    },
  };
}
