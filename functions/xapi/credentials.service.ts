/**
 * LRS credentials (decision 276): an Admin names a credential and its scopes; the key is its
 * public name (HTTP Basic user), the secret (32 random bytes) is shown once and stored as its
 * SHA-256; it works until an Admin revokes it.
 */
import { randomBytes } from 'node:crypto';
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { sha256Hex } from '../../shared/domain/secrets.ts';
import {
  deleteLrsCredential,
  getLrsCredential,
  insertLrsCredential,
  listLrsCredentials,
  type LrsCredentialRecord,
} from '../../shared/db/entities/lrs-credential.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { lrsCredentialView, type LrsCredentialView } from '../../shared/views/lrs-credential-views.ts';
import type { CreateLrsCredentialInput } from './xapi.schemas.ts';
import { lrsHomePage } from './xapi-protocol.ts';

function requirePerson(caller: Caller): void {
  if (caller.service) throw new ForbiddenError('LRS credentials are managed by an Admin signed in as themselves');
}

export async function create(
  caller: Caller,
  input: CreateLrsCredentialInput,
): Promise<LrsCredentialView & { secret: string; endpoint: string }> {
  requirePerson(caller);
  const secret = randomBytes(32).toString('base64url');
  const record: LrsCredentialRecord = {
    key: randomBytes(10).toString('hex'),
    name: input.name,
    scopes: input.scopes,
    secret_hash: sha256Hex(secret),
    created_by: caller.userid,
    created: nowSeconds(),
  };
  await insertLrsCredential(record);
  return { ...lrsCredentialView(record), secret, endpoint: `${lrsHomePage()}/` };
}

export async function list(caller: Caller): Promise<{ lrs_credentials: LrsCredentialView[] }> {
  requirePerson(caller);
  return { lrs_credentials: (await listLrsCredentials()).map(lrsCredentialView) };
}

export async function get(caller: Caller, key: string): Promise<LrsCredentialView> {
  requirePerson(caller);
  const record = await getLrsCredential(key);
  if (!record) throw new NotFoundError('No such LRS credential');
  return lrsCredentialView(record);
}

export async function revoke(caller: Caller, key: string): Promise<void> {
  requirePerson(caller);
  if (!(await deleteLrsCredential(key))) throw new NotFoundError('No such LRS credential');
}
