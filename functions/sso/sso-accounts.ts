/**
 * Who a company sign-in is (decision 233): the account whose sso_userid is the provider's
 * subject; else, where the Admin allows it, the account with the verified email; else a new
 * account when just-in-time creation is on. Roles and teams follow the mapped claims at every
 * sign-in (sso-mapping.ts, decision 241).
 */
import { createUserAccount } from '../../shared/accounts/accounts.ts';
import { findUserIdBy, getUser, type UserRecord } from '../../shared/db/entities/user.ts';
import type { IdentityProviderRecord } from '../../shared/db/entities/identity-provider.ts';
import { ForbiddenError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import { applyMappingAtSignIn, changeMappedTeams, mappedRoles, mappedTeams } from './sso-mapping.ts';

export interface AssertedIdentity {
  /** The account's sso_userid: the remote site's userid, or `<providerid>|<sub or NameID>`. */
  ssoUserid: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  /** Values of the provider's role claim / attribute. */
  roleValues: string[];
  /** Values of the provider's team claim / attribute. */
  teamValues?: string[];
}

/** Bounds on what a provider asserts (OIDC Core §2: sub is at most 255 ASCII characters). */
const MAX_SSO_USERID = 300;
const MAX_EMAIL = 254;
const MAX_NAME = 200;
const MAX_CLAIM_VALUES = 500;
const MAX_CLAIM_VALUE = 1024;

/** A 401 for an assertion that is out of bounds: a subject, email, name or claim list too long. */
export function checkAssertedBounds(identity: AssertedIdentity): void {
  const tooLong = (what: string) =>
    new UnauthenticatedError(`The identity provider's ${what} is longer than this site accepts`);
  if (identity.ssoUserid.length > MAX_SSO_USERID) throw tooLong('subject');
  if ((identity.email?.length ?? 0) > MAX_EMAIL) throw tooLong('email');
  if ((identity.name?.length ?? 0) > MAX_NAME) throw tooLong('name');
  for (const values of [identity.roleValues, identity.teamValues ?? []])
    if (values.length > MAX_CLAIM_VALUES || values.some((value) => value.length > MAX_CLAIM_VALUE))
      throw tooLong('role or team claim');
}

export async function accountFor(provider: IdentityProviderRecord, identity: AssertedIdentity): Promise<UserRecord> {
  checkAssertedBounds(identity);
  const bySso = await findUserIdBy('SSO', identity.ssoUserid);
  const existing = bySso !== undefined ? await getUser(bySso) : undefined;
  if (existing) return signingIn(provider, existing, identity);
  if (identity.email && identity.emailVerified && provider.match_verified_email) {
    const byEmail = await findUserIdBy('EMAIL', identity.email.trim());
    const user = byEmail !== undefined ? await getUser(byEmail) : undefined;
    if (user) return signingIn(provider, user, identity);
  }
  if (!provider.jit || !identity.email)
    throw new ForbiddenError('This account is not known to this site; ask an Administrator to create it');
  const user = await createUserAccount({
    email: identity.email,
    username: identity.name || identity.email.split('@')[0]!,
    sso_userid: identity.ssoUserid,
    privileges: mappedRoles(provider, identity.roleValues),
  });
  await changeMappedTeams(provider, user, mappedTeams(provider, identity.teamValues ?? []), []);
  return user;
}

/**
 * An existing account signing in: refused when disabled (deprovisioned: its session would be
 * refused at once anyway), else its roles and teams brought in line with the claims.
 */
function signingIn(provider: IdentityProviderRecord, user: UserRecord, identity: AssertedIdentity) {
  if (user.disabled) throw new ForbiddenError('This account is disabled; ask an Administrator');
  return applyMappingAtSignIn(provider, user, {
    roleValues: identity.roleValues,
    teamValues: identity.teamValues ?? [],
  });
}
