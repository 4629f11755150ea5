/**
 * A group's service module evaluated when a route first calls it, not when the function's bundle
 * is loaded (decision 337). A routes file declares
 *   import type * as WorkLogService from './work-log.service.ts';
 *   const workLog = lazyService<typeof WorkLogService>(() => import('./work-log.service.ts'));
 * and its handlers call `workLog.transition(...)` as before: every function of the module becomes
 * an async one that loads the module first. esbuild keeps the module inside the bundle (parsed at
 * cold start) but runs its body, and the bodies of the entities, read models and schemas only it
 * reaches, on the first call; a cold start then pays for the routes it serves, not for every
 * route of its group. Only functions cross this boundary: a constant or a type the routes file
 * needs comes from a module it imports statically (the group's schemas file, `import type`).
 */

type AnyFunction = (...args: any[]) => unknown;

/** The module's functions, each returning a promise of what it returned (or resolved to). */
export type LazyService<M> = {
  readonly [K in keyof M as M[K] extends AnyFunction ? K : never]: M[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

export function lazyService<M extends object>(load: () => Promise<M>): LazyService<M> {
  let loading: Promise<M> | undefined;
  const loaded = (): Promise<M> => {
    // A failed load (it should not fail: the module is in the bundle) is not kept.
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const calls = new Map<string, AnyFunction>();
  return new Proxy(Object.create(null) as LazyService<M>, {
    get(_target, name) {
      // Not a thenable (`await` of the proxy itself), and no symbol-keyed members.
      if (typeof name !== 'string' || name === 'then') return undefined;
      let call = calls.get(name);
      if (!call) {
        call = async (...args: unknown[]) => {
          const fn = (await loaded())[name as keyof M];
          if (typeof fn !== 'function') throw new TypeError(`The lazily loaded service has no function ${name}`);
          return fn(...args);
        };
        calls.set(name, call);
      }
      return call;
    },
  });
}
