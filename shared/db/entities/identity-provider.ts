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
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem, putItem } from '../items.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../table.ts';
import { parseStored, recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { isConditionFailed } from '../retry.ts';
import { nowSeconds } from '../../clock.ts';

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
});

export type SsoLoginStateRecord = StoredRecord<typeof ssoLoginStateItemSchema>;

const providerKey = (providerid: string) => ({ pk: `IDP#${providerid}`, sk: 'IDP' as const });
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

/** Every provider of the site, by id (a site has a handful: one Query page). */
export async function listIdentityProviders(): Promise<IdentityProviderRecord[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: INDEXES.gsi1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': INDEXES.gsi1.pk },
      ExpressionAttributeValues: { ':pk': 'IDPS' },
    }),
  );
  return (result.Items ?? []).map(asProvider);
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

/**
 * Records the first use of a one-time credential (a remote-login hash, a SAML assertion id):
 * true the first time, false for a replay. Kept until `expires` (its own validity), by TTL.
 */
export async function claimFirstUse(kind: string, id: string, providerid: string, expires: number): Promise<boolean> {
  return putItem(
    {
      pk: `SSOREPLAY#${kind}#${id}`,
      sk: 'SSOREPLAY',
      entity: 'SsoReplay',
      [TTL_ATTRIBUTE]: expires,
      providerid,
      used_date: nowSeconds(),
    } satisfies z.input<typeof ssoReplayItemSchema>,
    { ifAbsent: true },
  );
}

const stateKey = (stateHash: string) => ({ pk: `SSOSTATE#${stateHash}`, sk: 'SSOSTATE' as const });

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

const stepUpKey = (userid: number) => ({ pk: `STEPUP#${userid}`, sk: 'STEPUP' as const });

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
