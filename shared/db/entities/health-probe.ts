/**
 * The health route's table check (GET /health): one eventually consistent GetItem of a fixed key
 * no item has. It costs half a read unit, reads nothing, and fails only when the table does not
 * answer (missing, throttled, unreachable, or the function may not read it).
 */
import { getItem } from '../items.ts';

const PROBE_KEY = { pk: 'HEALTH', sk: 'PROBE' };

/** Resolves when the table answered the read; rejects with the SDK's error otherwise. */
export async function readProbeKey(): Promise<void> {
  await getItem(PROBE_KEY, { projection: ['pk'] });
}
