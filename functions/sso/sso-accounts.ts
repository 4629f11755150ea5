/**
 * Who a company sign-in is (decision 233): the account whose sso_userid is the provider's
 * subject; else, where the Admin allows it, the account with the verified email; else a new
 * account when just-in-time creation is on. Roles come from the mapped claim at creation.
 */
import { createUserAccount } from '../../shared/accounts/accounts.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { addMemberWrites, applyMembershipChanges, teamAggregateWrite } from '../../shared/db/entities/team.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { teamMembershipChanged } from '../../shared/training/team-membership.ts';
import { log } from '../../shared/observability/logger.ts';
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
  /** Values of the provider's team claim / attribute. */
  teamValues?: string[];
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
  const user = await createUserAccount({
    email: identity.email,
    username: identity.name || identity.email.split('@')[0]!,
    sso_userid: identity.ssoUserid,
    privileges: mappedRoles(provider, identity.roleValues),
  });
  await joinMappedTeams(provider, user, identity.teamValues ?? []);
  return user;
}

/** The teams the mapped claim values name (each team once). */
export function mappedTeams(provider: IdentityProviderRecord, values: string[]): number[] {
  return [...new Set(values.map((value) => provider.team_map[value]).filter((teamid) => teamid !== undefined))];
}

/**
 * A new account joins the teams its claims map to, each as POST /teams/{teamid}/members would
 * add it (member item, the user's teams, the team's counts, its course assignments). A team
 * removed since the mapping was set is skipped: the sign-in goes on.
 */
async function joinMappedTeams(provider: IdentityProviderRecord, user: UserRecord, values: string[]): Promise<void> {
  const now = nowSeconds();
  for (const teamid of mappedTeams(provider, values)) {
    try {
      await applyMembershipChanges([
        ...addMemberWrites(teamid, user.userid, now),
        teamAggregateWrite(teamid, 1, user.reputation, now),
      ]);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      log().warn('A mapped team could not be joined', { providerid: provider.providerid, teamid });
      continue;
    }
    await teamMembershipChanged(teamid, [user.userid], [], now);
  }
}
