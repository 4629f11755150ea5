/**
 * Many deployed functions in one process, each seeing its own environment: `process.env`
 * becomes a view that answers from the environment of the function whose code is running (an
 * AsyncLocalStorage scope entered for its module load and for every invocation), and from the
 * host's environment everywhere else. The IAM check reads the same scope to know whose role
 * a call is made under.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SynthesizedFunction } from './template.ts';

export interface FunctionScope {
  fn: SynthesizedFunction;
  env: Record<string, string>;
}

const scopes = new AsyncLocalStorage<FunctionScope>();
let installed = false;

export function currentFunction(): FunctionScope | undefined {
  return scopes.getStore();
}

export function runAs<T>(scope: FunctionScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** Replaces process.env with the scoped view (once per process). */
export function installScopedEnvironment(): void {
  if (installed) return;
  installed = true;
  const host = process.env;
  const target = () => scopes.getStore()?.env ?? host;
  process.env = new Proxy(host, {
    get: (_host, name) => (typeof name === 'string' ? target()[name] : undefined),
    set: (_host, name, value) => {
      if (typeof name === 'string') target()[name] = String(value);
      return true;
    },
    has: (_host, name) => typeof name === 'string' && name in target(),
    deleteProperty: (_host, name) => {
      if (typeof name === 'string') delete target()[name];
      return true;
    },
    ownKeys: () => Object.keys(target()),
    getOwnPropertyDescriptor: (_host, name) => {
      const values = target();
      if (typeof name !== 'string' || !(name in values)) return undefined;
      return { value: values[name], writable: true, enumerable: true, configurable: true };
    },
  });
}
