/**
 * Who a company sign-in is (decision 233): the account whose sso_userid is the provider's
 * subject; else, where the Admin allows it, the account with the verified email; else a new
 * account when just-in-time creation is on. Roles come from the mapped claim at creation.
 */
import { createUserAccount } from '../../shared/accounts/accounts.ts';
import { findUserIdBy, getUser, type UserRecord } from '../../shared/db/entities/user.ts';
import type { IdentityProviderRecord } from '../../shared/db/entities/identity-provider.ts';
import { ForbiddenError } from '../../shared/domain/errors.ts';
import type { Role } from '../../shared/domain/caller.ts';

export interface AssertedIdentity {
  /** The account's sso_userid: the remote site's userid, or `<providerid>|<sub or NameID>`. */
  ssoUserid: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  /** Values of the provider's role claim / attribute. */
  roleValues: string[];
}

const ROLE_ORDER: Role[] = ['User', 'Author', 'Admin'];

/** The roles the mapped claim values grant (always at least User). */
export function mappedRoles(provider: IdentityProviderRecord, values: string[]): Role[] {
  const granted = new Set<Role>(['User']);
  for (const value of values) {
    const role = provider.role_map[value];
    if (role) granted.add(role);
  }
  return ROLE_ORDER.filter((role) => granted.has(role));
}

export async function accountFor(provider: IdentityProviderRecord, identity: AssertedIdentity): Promise<UserRecord> {
  const bySso = await findUserIdBy('SSO', identity.ssoUserid);
  const existing = bySso !== undefined ? await getUser(bySso) : undefined;
  if (existing) return existing;
  if (identity.email && identity.emailVerified && provider.match_verified_email) {
    const byEmail = await findUserIdBy('EMAIL', identity.email.trim());
    const user = byEmail !== undefined ? await getUser(byEmail) : undefined;
    if (user) return user;
  }
  if (!provider.jit || !identity.email)
    throw new ForbiddenError('This account is not known to this site; ask an Administrator to create it');
  return createUserAccount({
    email: identity.email,
    username: identity.name || identity.email.split('@')[0]!,
    sso_userid: identity.ssoUserid,
    privileges: mappedRoles(provider, identity.roleValues),
  });
}
