/**
 * Site API tokens (decision 227): an Admin names a token and its scopes; the token is shown
 * once, stored as its SHA-256, and works until an Admin revokes it, whoever made it. Creating and
 * revoking are recorded in the token's audit chain in the same transaction as the write.
 */
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import type { Caller, SignedInAuth } from '../../shared/domain/caller.ts';
import { newServiceToken, sha256Hex } from '../../shared/domain/secrets.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import {
  apiTokenDeleteWrite,
  apiTokenInsertWrite,
  type ApiTokenRecord,
  getApiToken,
  listApiTokens,
} from '../../shared/db/entities/api-token.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { apiTokenView, type ApiTokenView } from '../../shared/views/api-token-views.ts';
import type { CreateApiTokenInput } from './api-tokens.schemas.ts';

/**
 * Tokens are an Admin's to manage: a token (even a `full` one) and an impersonation token
 * (decision 261) cannot mint, list or revoke tokens.
 */
function requirePerson(auth: SignedInAuth): Caller {
  if (auth.user.service || auth.impersonatorUserid !== undefined)
    throw new ForbiddenError('API tokens are managed by an Admin signed in as themselves');
  return auth.user;
}

export async function create(
  auth: SignedInAuth,
  input: CreateApiTokenInput,
): Promise<ApiTokenView & { token: string }> {
  const caller = requirePerson(auth);
  const { tokenid, token } = newServiceToken();
  const record: ApiTokenRecord = {
    tokenid,
    name: input.name,
    scopes: input.scopes,
    token_hash: sha256Hex(token),
    created_by: caller.userid,
    created: nowSeconds(),
  };
  await appendAudit(
    {
      action: 'api_token.created',
      actor_userid: caller.userid,
      subjects: [auditSubject.apiToken(tokenid)],
      details: { name: record.name, scopes: record.scopes },
    },
    [apiTokenInsertWrite(record)],
  );
  return { ...apiTokenView(record), token };
}

export async function list(auth: SignedInAuth): Promise<{ api_tokens: ApiTokenView[] }> {
  requirePerson(auth);
  return { api_tokens: (await listApiTokens()).map(apiTokenView) };
}

async function requireToken(tokenid: string): Promise<ApiTokenRecord> {
  const token = await getApiToken(tokenid);
  if (!token) throw new NotFoundError('No such API token');
  return token;
}

export async function get(auth: SignedInAuth, tokenid: string): Promise<ApiTokenView> {
  requirePerson(auth);
  return apiTokenView(await requireToken(tokenid));
}

export async function revoke(auth: SignedInAuth, tokenid: string): Promise<void> {
  const caller = requirePerson(auth);
  const token = await requireToken(tokenid);
  try {
    await appendAudit(
      {
        action: 'api_token.revoked',
        actor_userid: caller.userid,
        subjects: [auditSubject.apiToken(tokenid)],
        details: { name: token.name, scopes: token.scopes },
      },
      [apiTokenDeleteWrite(tokenid)],
    );
  } catch (error) {
    // Another Admin revoked it first.
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('api-token'))
      throw new NotFoundError('No such API token');
    throw error;
  }
}
