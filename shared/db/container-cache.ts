/**
 * Items this container read for authentication, kept briefly for the requests that follow: the
 * caller's token and user item are read on nearly every request. An entry lives until the
 * `validUntil` it is stored with (at most CONTAINER_CACHE_TTL_MS after the read), the oldest goes
 * first past `maxEntries`, and any write this container makes through the table clients empties
 * every container cache at once (client.ts `onTableWrite`): a container never serves what it has
 * changed itself. A change made by another container reaches this one within the TTL (decision
 * 106). No AsyncLocalStorage: a request-scoped store costs a promise hook on every promise.
 */
import { onTableWrite } from './client.ts';

/** How long another container's change (logout, password, role, profile) may lag here. */
export const CONTAINER_CACHE_TTL_MS = 1000;

export class ContainerCache<V> {
  readonly #entries = new Map<string, { value: V; validUntil: number }>();

  constructor(private readonly maxEntries: number) {
    onTableWrite(() => this.#entries.clear());
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.validUntil > now) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, validUntil: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, validUntil });
  }
}
