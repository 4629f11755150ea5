/**
 * Site API tokens (decision 227): an Admin names a token and its scopes; the token is shown
 * once, stored as its SHA-256, and works until an Admin revokes it, whoever made it. Creating and
 * revoking are recorded in the token's audit chain in the same transaction as the write.
 */
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import type { Caller } from '../../shared/domain/caller.ts';
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

/** Tokens are an Admin's to manage: a token (even a `full` one) cannot mint or revoke tokens. */
function requirePerson(caller: Caller): void {
  if (caller.service) throw new ForbiddenError('API tokens are managed by an Admin signed in as themselves');
}

export async function create(caller: Caller, input: CreateApiTokenInput): Promise<ApiTokenView & { token: string }> {
  requirePerson(caller);
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

export async function list(caller: Caller): Promise<{ api_tokens: ApiTokenView[] }> {
  requirePerson(caller);
  return { api_tokens: (await listApiTokens()).map(apiTokenView) };
}

async function requireToken(tokenid: string): Promise<ApiTokenRecord> {
  const token = await getApiToken(tokenid);
  if (!token) throw new NotFoundError('No such API token');
  return token;
}

export async function get(caller: Caller, tokenid: string): Promise<ApiTokenView> {
  requirePerson(caller);
  return apiTokenView(await requireToken(tokenid));
}

export async function revoke(caller: Caller, tokenid: string): Promise<void> {
  requirePerson(caller);
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
