/**
 * Roles and teams from the identity provider's claims, at every sign-in (decision 241).
 * The mapping manages only what it names: the roles that are values of `role_map` and the
 * teams that are values of `team_map`. A managed role or team the claims no longer carry is
 * taken away; anything an Administrator gave by hand outside the mapping stays. Admin is never
 * taken away by the mapping unless the provider says so (`demote_admins`): a break-glass Admin
 * must not lose the site because a group claim changed. Each change is audited on the user's
 * chain (and the team's), naming the provider.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import type { IdentityProviderRecord } from '../../shared/db/entities/identity-provider.ts';
import {
  addMemberWrites,
  applyMembershipChanges,
  removeMemberWrites,
  teamAggregateWrite,
} from '../../shared/db/entities/team.ts';
import { getUser, replaceUser, type UserRecord } from '../../shared/db/entities/user.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import type { Role } from '../../shared/domain/caller.ts';
import { log } from '../../shared/observability/logger.ts';
import { teamMembershipChanged } from '../../shared/training/team-membership.ts';

const ROLE_ORDER: Role[] = ['User', 'Author', 'Admin'];

/**
 * A claim value's mapping: only the map's own entries (a claim value is data: `constructor` or
 * `toString` names nothing, not Object.prototype's members; issue 35 item 9).
 */
function mapped<T>(map: Record<string, T>, value: string): T | undefined {
  return Object.hasOwn(map, value) ? map[value] : undefined;
}

/** The roles the mapped claim values grant (always at least User). */
export function mappedRoles(provider: IdentityProviderRecord, values: string[]): Role[] {
  const granted = new Set<Role>(['User']);
  for (const value of values) {
    const role = mapped(provider.role_map, value);
    if (role) granted.add(role);
  }
  return ROLE_ORDER.filter((role) => granted.has(role));
}

/** The teams the mapped claim values name (each team once). */
export function mappedTeams(provider: IdentityProviderRecord, values: string[]): number[] {
  return [
    ...new Set(values.map((value) => mapped(provider.team_map, value)).filter((teamid) => typeof teamid === 'number')),
  ];
}

/** An account's roles after a sign-in whose claims carry `values` (pure). */
export function rolesAfterSignIn(provider: IdentityProviderRecord, current: Role[], values: string[]): Role[] {
  const managed = new Set(Object.values(provider.role_map).filter((role) => role !== 'User'));
  const granted = new Set(mappedRoles(provider, values));
  const next = new Set(current);
  for (const role of managed) {
    if (granted.has(role)) next.add(role);
    else if (role !== 'Admin' || provider.demote_admins === true) next.delete(role);
  }
  next.add('User');
  return ROLE_ORDER.filter((role) => next.has(role));
}

export interface MappedValues {
  roleValues: string[];
  teamValues: string[];
}

const actor = (provider: IdentityProviderRecord) => ({
  actor_userid: null,
  details: { source: 'identity_provider', providerid: provider.providerid },
});

/** Brings an existing account's roles and teams in line with this sign-in's claims. */
export async function applyMappingAtSignIn(
  provider: IdentityProviderRecord,
  user: UserRecord,
  values: MappedValues,
): Promise<UserRecord> {
  // A remote login carries no claims: its provider maps nothing.
  if (provider.kind === 'remote_login') return user;
  let current = user;
  if (provider.role_claim) current = await mapRoles(provider, current, values.roleValues);
  if (provider.team_claim) {
    const desired = new Set(mappedTeams(provider, values.teamValues));
    const managed = new Set(Object.values(provider.team_map));
    const join = [...desired].filter((teamid) => !current.teams.includes(teamid));
    const leave = current.teams.filter((teamid) => managed.has(teamid) && !desired.has(teamid));
    if (join.length + leave.length > 0) {
      await changeMappedTeams(provider, current, join, leave);
      current = (await getUser(current.userid, { consistent: true })) ?? current;
    }
  }
  return current;
}

async function mapRoles(provider: IdentityProviderRecord, user: UserRecord, values: string[]): Promise<UserRecord> {
  const changed = await retryOnLostRace(
    async (attempt) => {
      const before = attempt === 0 ? user : await getUser(user.userid, { consistent: true });
      if (!before) return undefined;
      const privileges = rolesAfterSignIn(provider, before.privileges, values);
      if (privileges.join() === before.privileges.join()) return undefined;
      await replaceUser(before, { ...before, privileges });
      return { old: before.privileges, new: privileges };
    },
    { attempts: 5, raceLabels: labelsIn('user') },
  );
  if (!changed) return user;
  await appendAudit({
    action: 'user.privileges_changed',
    ...actor(provider),
    subjects: [auditSubject.user(user.userid)],
    details: { ...actor(provider).details, ...changed },
  });
  return (await getUser(user.userid, { consistent: true })) ?? user;
}

/**
 * Each team joined as POST /teams/{teamid}/members would add the user (member item, the user's
 * teams, the team's counts, its course assignments) and left likewise; a team removed since the
 * mapping was set, or a membership changed meanwhile, is skipped: the sign-in goes on.
 */
export async function changeMappedTeams(
  provider: IdentityProviderRecord,
  user: UserRecord,
  join: number[],
  leave: number[],
): Promise<void> {
  const now = nowSeconds();
  const changes = [
    ...join.map((teamid) => ({ teamid, joining: true })),
    ...leave.map((teamid) => ({ teamid, joining: false })),
  ];
  for (const { teamid, joining } of changes) {
    try {
      await applyMembershipChanges(
        joining
          ? [...addMemberWrites(teamid, user.userid, now), teamAggregateWrite(teamid, 1, user.reputation, now)]
          : [...removeMemberWrites(teamid, user.userid), teamAggregateWrite(teamid, -1, -user.reputation, null)],
      );
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      log().warn('A mapped team could not be changed', { providerid: provider.providerid, teamid, joining });
      continue;
    }
    await teamMembershipChanged(teamid, joining ? [user.userid] : [], joining ? [] : [user.userid], now);
    await appendAudit({
      action: joining ? 'team.member_added' : 'team.member_removed',
      ...actor(provider),
      subjects: [auditSubject.user(user.userid), auditSubject.team(teamid)],
      details: { ...actor(provider).details, teamid, userid: user.userid },
    });
  }
}
