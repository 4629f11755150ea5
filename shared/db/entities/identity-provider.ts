/**
 * Company sign-in (docs/identity.md, decisions 231-234).
 * - IdentityProvider: pk IDP#<providerid> / sk IDP, listed through gsi1 (IDPS, providerid). One
 *   item per configured provider (OIDC, SAML or Dozuki's remote login). Secrets are stored
 *   sealed (shared/domain/secret-at-rest.ts), never in clear; the remote-login provider's id is
 *   always `remote_login`, so a site has at most one (the put is conditional on the key).
 * - SsoReplay: pk SSOREPLAY#<kind>#<id> / sk SSOREPLAY, with a TTL: a used remote-login hash or
 *   SAML assertion id. Put on condition that none is there: a second use fails that condition.
 * - SsoLoginState: pk SSOSTATE#<sha256 of the state> / sk SSOSTATE, with a TTL: what an OIDC or
 *   SAML login started (PKCE verifier, nonce, where to return); taken by a delete, so once only.
 * - StepUp: pk STEPUP#<userid> / sk STEPUP, with a TTL: the latest fresh re-authentication of an
 *   SSO user at the identity provider (for e-signatures), until its window ends.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem, putItem } from '../items.ts';
import { queryAll } from '../paging.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../table.ts';
import { parseStored, recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { isConditionFailed } from '../retry.ts';
import { nowSeconds } from '../../clock.ts';
import type { TransactItem } from '../transactions.ts';

export const IDP_KINDS = ['oidc', 'saml', 'remote_login'] as const;
export type IdpKind = (typeof IDP_KINDS)[number];
export const REMOTE_LOGIN_PROVIDERID = 'remote_login';

const nullableText = z.nullable(z.string());

/** An IdentityProvider item as putIdentityProvider writes it. */
export const identityProviderItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('IDP'),
  entity: z.literal('IdentityProvider'),
  gsi1pk: z.literal('IDPS'),
  gsi1sk: z.string(),
  providerid: z.string(),
  kind: z.enum(IDP_KINDS),
  name: z.string(),
  enabled: z.boolean(),
  /** Create an account at its first sign-in (else only existing accounts sign in). */
  jit: z.boolean(),
  /** Match an account by a verified email when no account has the sso_userid yet. */
  match_verified_email: z.boolean(),
  /** The claim (OIDC) or attribute (SAML) naming roles, and what each value grants. */
  role_claim: nullableText,
  role_map: z.record(z.string(), z.enum(['User', 'Author', 'Admin'])),
  /** The mapping may take Admin away at sign-in (decision 241); absent on items written before: false. */
  demote_admins: z.optional(z.boolean()),
  team_claim: nullableText,
  team_map: z.record(z.string(), z.int().check(z.positive())),
  /** OIDC. */
  issuer: nullableText,
  client_id: nullableText,
  client_secret_sealed: nullableText,
  scopes: nullableText,
  /** SAML. */
  idp_entity_id: nullableText,
  idp_sso_url: nullableText,
  idp_certificates: z.array(z.string()),
  sp_entity_id: nullableText,
  /** Remote login: the customer's Remote Authentication URL, and the shared secret, sealed. */
  login_url: nullableText,
  secret_sealed: nullableText,
  /** How old an IdP sign-in may be for an e-signature (step-up), seconds. */
  step_up_max_age_seconds: z.int().check(z.positive()),
  created_by: z.int(),
  created_date: z.number(),
  modified_date: z.number(),
  version: z.int(),
});

export type IdentityProviderRecord = StoredRecord<typeof identityProviderItemSchema>;

export const ssoReplayItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SSOREPLAY'),
  entity: z.literal('SsoReplay'),
  ttl: z.number(),
  providerid: z.string(),
  used_date: z.number(),
});

/**
 * An over-the-shoulder sign-in (decision 238): someone signs in at the provider on the device of
 * `caller_userid` to sign this signoff or approval request; the session is not changed.
 */
export const signForSchema = z.object({
  subject: z.enum(['signoff_request', 'approval_request']),
  subjectid: z.int().check(z.positive()),
  caller_userid: z.int().check(z.positive()),
});

export type SignFor = z.output<typeof signForSchema>;

export const ssoLoginStateItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SSOSTATE'),
  entity: z.literal('SsoLoginState'),
  ttl: z.number(),
  providerid: z.string(),
  /** OIDC: the nonce and PKCE verifier; SAML: the AuthnRequest id (InResponseTo). */
  nonce: nullableText,
  code_verifier: nullableText,
  request_id: nullableText,
  return_to: z.string(),
  /** A step-up for an e-signature: the user who must sign in again. */
  step_up_userid: z.nullable(z.int()),
  /** An over-the-shoulder sign-in for a signature (absent on other logins). */
  sign_for: z.optional(signForSchema),
});

export type SsoLoginStateRecord = StoredRecord<typeof ssoLoginStateItemSchema>;

export const providerKey = (providerid: string) => ({ pk: `IDP#${providerid}`, sk: 'IDP' as const });
const asProvider = recordsOf(identityProviderItemSchema);

function providerItem(provider: IdentityProviderRecord): z.input<typeof identityProviderItemSchema> {
  return {
    ...providerKey(provider.providerid),
    entity: 'IdentityProvider',
    [INDEXES.gsi1.pk]: 'IDPS',
    [INDEXES.gsi1.sk]: provider.providerid,
    ...provider,
  } as z.input<typeof identityProviderItemSchema>;
}

export async function getIdentityProvider(providerid: string): Promise<IdentityProviderRecord | undefined> {
  const item = await getItem(providerKey(providerid));
  return item ? asProvider(item) : undefined;
}

/** Every provider of the site, by id (a site has a handful). */
export async function listIdentityProviders(): Promise<IdentityProviderRecord[]> {
  return (await queryAll({ index: INDEXES.gsi1, partition: 'IDPS' })).map(asProvider);
}

/** A new provider: false when its id is taken. */
export async function insertIdentityProvider(provider: IdentityProviderRecord): Promise<boolean> {
  return putItem(providerItem(provider), { ifAbsent: true });
}

/** Replaces a provider only while it is still at `previous.version`: false when it changed meanwhile. */
export async function replaceIdentityProvider(
  previous: IdentityProviderRecord,
  next: IdentityProviderRecord,
): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: providerItem(next),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': previous.version },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

export async function deleteIdentityProvider(providerid: string): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: providerKey(providerid), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}

export const replayKey = (kind: string, id: string) => ({ pk: `SSOREPLAY#${kind}#${id}`, sk: 'SSOREPLAY' as const });

/**
 * Records the first use of a one-time credential (a remote-login hash, a SAML assertion id):
 * true the first time, false for a replay. Kept until `expires` (its own validity), by TTL.
 */
export async function claimFirstUse(kind: string, id: string, providerid: string, expires: number): Promise<boolean> {
  return putItem(
    {
      ...replayKey(kind, id),
      entity: 'SsoReplay',
      [TTL_ATTRIBUTE]: expires,
      providerid,
      used_date: nowSeconds(),
    } satisfies z.input<typeof ssoReplayItemSchema>,
    { ifAbsent: true },
  );
}

export const stateKey = (stateHash: string) => ({ pk: `SSOSTATE#${stateHash}`, sk: 'SSOSTATE' as const });

export async function putLoginState(stateHash: string, state: SsoLoginStateRecord, expires: number): Promise<void> {
  const item: z.input<typeof ssoLoginStateItemSchema> = {
    ...stateKey(stateHash),
    entity: 'SsoLoginState',
    [TTL_ATTRIBUTE]: expires,
    ...state,
  };
  await putItem(item);
}

/** Takes a login state (deletes it): once only, and not after its TTL. */
export async function takeLoginState(stateHash: string): Promise<SsoLoginStateRecord | undefined> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: stateKey(stateHash), ReturnValues: 'ALL_OLD' }),
  );
  if (!result.Attributes) return undefined;
  // The TTL deletes late: an expired state still there is refused here.
  if (parseStored(ssoLoginStateItemSchema, result.Attributes).ttl <= nowSeconds()) return undefined;
  return recordFrom(ssoLoginStateItemSchema, result.Attributes);
}

export const stepUpItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('STEPUP'),
  entity: z.literal('StepUp'),
  ttl: z.number(),
  userid: z.int().check(z.positive()),
  providerid: z.string(),
  method: z.enum(['oidc', 'saml']),
  /** When the person authenticated at the provider (OIDC auth_time, SAML AuthnInstant), unix seconds. */
  auth_time: z.number(),
});

export type StepUpRecord = StoredRecord<typeof stepUpItemSchema> & { fresh_until: number };

export const stepUpKey = (userid: number) => ({ pk: `STEPUP#${userid}`, sk: 'STEPUP' as const });

export async function putStepUp(step: StoredRecord<typeof stepUpItemSchema>, freshUntil: number): Promise<void> {
  const item: z.input<typeof stepUpItemSchema> = {
    ...stepUpKey(step.userid),
    entity: 'StepUp',
    [TTL_ATTRIBUTE]: freshUntil,
    ...step,
  };
  await putItem(item);
}

/** The user's step-up while it is fresh (the TTL deletes late: an expired one reads as none). */
export async function getFreshStepUp(userid: number): Promise<StepUpRecord | undefined> {
  const item = await getItem(stepUpKey(userid), { consistent: true });
  if (!item) return undefined;
  const stored = parseStored(stepUpItemSchema, item);
  if (stored.ttl <= nowSeconds()) return undefined;
  return { ...recordFrom(stepUpItemSchema, item), fresh_until: stored.ttl };
}

/**
 * The write that spends the user's step-up on one signature (decision 237, 251), for the
 * signature's own transaction: deleted on condition that it is the one read (same auth_time)
 * and still fresh, so two signatures can never share it, and a signature that is not written
 * leaves it for the next try.
 */
export function stepUpSpendWrite(userid: number, authTime: number): TransactItem {
  return {
    Delete: {
      TableName: tableName(),
      Key: stepUpKey(userid),
      ConditionExpression: 'auth_time = :authTime AND #ttl > :now',
      ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':authTime': authTime, ':now': nowSeconds() },
    },
  };
}

/**
 * StepUpTicket: pk STEPUPTICKET#<sha256 of the ticket> / sk STEPUPTICKET, with a TTL. A one-time,
 * short-lived ticket that lets a browser without a session start a step-up for one user (an
 * API-only client opens the URL in the system browser). Taken by a delete: once only.
 */
export const stepUpTicketItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('STEPUPTICKET'),
  entity: z.literal('StepUpTicket'),
  ttl: z.number(),
  userid: z.int().check(z.positive()),
  expires_at: z.number(),
});

export type StepUpTicketRecord = StoredRecord<typeof stepUpTicketItemSchema>;

export const ticketKey = (ticketHash: string) => ({ pk: `STEPUPTICKET#${ticketHash}`, sk: 'STEPUPTICKET' as const });

export async function putStepUpTicket(ticketHash: string, ticket: StepUpTicketRecord): Promise<void> {
  const item: z.input<typeof stepUpTicketItemSchema> = {
    ...ticketKey(ticketHash),
    entity: 'StepUpTicket',
    [TTL_ATTRIBUTE]: ticket.expires_at,
    ...ticket,
  };
  if (!(await putItem(item, { ifAbsent: true }))) throw new Error('A step-up ticket with this hash exists already');
}

/** Takes a ticket (once): its record while it is live, else undefined (unknown, used or expired). */
export async function takeStepUpTicket(ticketHash: string): Promise<StepUpTicketRecord | undefined> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: ticketKey(ticketHash), ReturnValues: 'ALL_OLD' }),
  );
  if (!result.Attributes) return undefined;
  const ticket = recordFrom(stepUpTicketItemSchema, result.Attributes);
  return ticket.expires_at > nowSeconds() ? ticket : undefined;
}
