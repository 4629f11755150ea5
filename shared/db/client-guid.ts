/**
 * Claims of client-made ids (decision 224): a uniqueness item per owner (a user, or a site API
 * token: `ownerKey`, decision 250), kind and guid
 * (`UNIQUE#CLIENT_GUID#<kind>#<owner>#<guid>`), written in the create's own transaction, holding
 * the record's id and the fingerprint of the request that made it.
 */
import {
  answerHeldGuid,
  type ClientGuidHolder,
  type ClientGuidKind,
  type Created,
  requestFingerprint,
} from '../domain/client-guid.ts';
import type { OwnerKey } from '../domain/caller.ts';
import { getItem } from './items.ts';
import type { LabelledWrite } from './transactions.ts';
import { TransactionConditionFailed } from './transactions.ts';
import { claimUnique, uniqueKey } from './uniqueness.ts';

/** The label of the claim in a create's transaction: failing, another create holds the guid. */
export const CLIENT_GUID_LABEL = 'CLIENT_GUID';

function claimValue(kind: ClientGuidKind, owner: OwnerKey, guid: string): string {
  return `${kind}#${owner}#${guid}`;
}

/** The claim write to add to the create's transaction. */
export function claimClientGuid(
  kind: ClientGuidKind,
  owner: OwnerKey,
  guid: string,
  holder: ClientGuidHolder,
): LabelledWrite {
  return claimUnique('CLIENT_GUID', claimValue(kind, owner, guid), {
    client_ref: holder.ref,
    fingerprint: holder.fingerprint,
  });
}

/** Who holds a guid (a strongly consistent read), or undefined. */
export async function clientGuidHolder(
  kind: ClientGuidKind,
  owner: OwnerKey,
  guid: string,
): Promise<ClientGuidHolder | undefined> {
  const item = await getItem(uniqueKey('CLIENT_GUID', claimValue(kind, owner, guid)), { consistent: true });
  if (!item || typeof item.client_ref !== 'string' || typeof item.fingerprint !== 'string') return undefined;
  return { ref: item.client_ref, fingerprint: item.fingerprint };
}

/**
 * Another create claimed the guid first, said inside a retried block (retryOnLostRace would take
 * the failed claim for a lost race and do the work again).
 */
export class ClientGuidTaken extends Error {
  constructor() {
    super('Another request claimed this client guid first');
    this.name = 'ClientGuidTaken';
  }
}

/** Whether a create's transaction failed because another create claimed the guid first. */
export function lostGuidRace(error: unknown): boolean {
  if (error instanceof ClientGuidTaken) return true;
  return error instanceof TransactionConditionFailed && error.failedLabels.includes(CLIENT_GUID_LABEL);
}

export interface CreateOnce<T> {
  kind: ClientGuidKind;
  /** Whose claim: a userid, or `ownerKey(caller)` where a site API token may create. */
  userid: OwnerKey;
  /** The device's guid; without one the record is simply made. */
  guid: string | undefined;
  /** What the create asks for (its fingerprint decides "same request"). */
  request: unknown;
  /** The record a held guid names, as the route answers it. */
  existing: (ref: string) => Promise<T>;
  /** Makes the record; `claim(id)` is the write to add to its transaction, when there is a guid. */
  make: (claim: ((ref: string | number) => LabelledWrite) | undefined) => Promise<T>;
}

/**
 * A create with a client guid, once (decision 224): the record the guid already names (created:
 * false; a 409 when the request differs), else the record made now with the claim in its
 * transaction. A create that loses the claim to a concurrent send answers as for a held guid.
 */
export async function createOnce<T>(options: CreateOnce<T>): Promise<Created<T>> {
  const { kind, userid, guid } = options;
  if (guid === undefined) return { created: true, record: await options.make(undefined) };
  const fingerprint = requestFingerprint(options.request);
  for (;;) {
    const holder = await clientGuidHolder(kind, userid, guid);
    if (holder)
      return { created: false, record: await answerHeldGuid(holder, fingerprint, () => options.existing(holder.ref)) };
    try {
      const record = await options.make((ref) =>
        claimClientGuid(kind, userid, guid, { ref: String(ref), fingerprint }),
      );
      return { created: true, record };
    } catch (error) {
      if (!lostGuidRace(error)) throw error;
    }
  }
}
