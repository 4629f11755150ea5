/**
 * Items read once per request: authentication loads the caller's user item, and a handler that
 * asks for the same user in the same request gets that copy instead of a second read. Any write
 * through the document client clears the cache (see client.ts), so a request never sees its own
 * writes stale. Nothing outlives the request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<Map<string, unknown>>();

export function runWithRequestCache<T>(work: () => Promise<T>): Promise<T> {
  return storage.run(new Map(), work);
}

export function remember(key: string, value: unknown): void {
  storage.getStore()?.set(key, value);
}

export async function readThrough<T>(key: string, load: () => Promise<T>): Promise<T> {
  const cache = storage.getStore();
  if (!cache) return load();
  if (cache.has(key)) return cache.get(key) as T;
  const value = await load();
  cache.set(key, value);
  return value;
}

export function clearRequestCache(): void {
  storage.getStore()?.clear();
}
