/**
 * Who may change an account's credentials (password, email), role, active state or external
 * ids (sso_userid, employee_id): one rule for PATCH /users/{id}, account creation with a role,
 * and SCIM's User writes (decision 259).
 * - A token is not a person: no site API token (`full` or `scim`) and no impersonation token
 *   changes an Admin account's credentials, role, state or external ids, nor makes an account an
 *   Admin. SCIM manages the accounts an identity provider provisions, never an Admin: any SCIM
 *   write to an Admin account is refused.
 * - Nobody changes their own password without their current one (checked where the password
 *   is: the users service, under the login throttle); this rule asks for it.
 * - The last enabled Admin is never disabled or demoted.
 * All of it is decided before anything is written.
 */
import { ForbiddenError, ValidationError } from '../domain/errors.ts';
import type { AuthContext, Caller, Role } from '../domain/caller.ts';
import { activeAdminUserids, type UserRecord } from '../db/entities/user.ts';

/** What a write would change on an account (only the parts this rule is about). */
export interface AccountChange {
  /** A new password. */
  password?: boolean;
  /** A new email (the login; a reset link goes there). */
  email?: boolean;
  /** The privileges after the change. */
  privileges?: Role[];
  /** The active state after the change (false: disabled). */
  active?: boolean;
  /** A new sso_userid or employee_id. */
  externalIds?: boolean;
}

/** Who is asking: the caller, and whether an impersonation token carries them. */
export interface AccountActor {
  caller: Caller;
  impersonated: boolean;
}

export function accountActor(auth: Pick<AuthContext, 'impersonatorUserid'>, caller: Caller): AccountActor {
  return { caller, impersonated: auth.impersonatorUserid !== undefined };
}

const isAdminAccount = (user: Pick<UserRecord, 'privileges'>) => user.privileges.includes('Admin');
const isActiveAdmin = (user: Pick<UserRecord, 'privileges' | 'disabled'>) => isAdminAccount(user) && !user.disabled;

/** True when the actor is a token rather than a person signed in as themselves. */
function actsThroughToken(actor: AccountActor): boolean {
  return actor.caller.service !== undefined || actor.impersonated;
}

function touchesAuthority(target: UserRecord, change: AccountChange): boolean {
  return (
    Boolean(change.password || change.email || change.externalIds) ||
    (change.active !== undefined && change.active === Boolean(target.disabled)) ||
    (change.privileges !== undefined && [...change.privileges].sort().join() !== [...target.privileges].sort().join())
  );
}

/** A token may not make an account an Admin (a new account or an existing one). */
export function requireMayGrantRoles(actor: AccountActor, privileges: Role[] | undefined): void {
  if (privileges?.includes('Admin') && actsThroughToken(actor))
    throw new ForbiddenError('Only an Admin signed in as themselves may make an account an Admin');
}

/**
 * Refuses a change the rule forbids (403 for who may not, 422 for the last Admin and a missing
 * current password). `currentPasswordGiven`: the request carries one (the caller checks it).
 */
export async function requireMayChangeAccount(
  actor: AccountActor,
  target: UserRecord,
  change: AccountChange,
  currentPasswordGiven = false,
  /** The enabled Admins' userids (a parameter so the unit test can give the count no request can reach). */
  enabledAdmins: () => Promise<number[]> = activeAdminUserids,
): Promise<void> {
  if (!touchesAuthority(target, change)) return;
  if (actsThroughToken(actor)) {
    if (isAdminAccount(target))
      throw new ForbiddenError(
        "A token cannot change an Admin account's credentials, role, state or external ids; " +
          'an Admin signed in as themselves can',
      );
    requireMayGrantRoles(actor, change.privileges);
  }
  if (change.password && actor.caller.userid === target.userid && !actor.caller.service && !currentPasswordGiven)
    throw ValidationError.field(
      'current_password',
      'missing_field',
      'current_password is required to change your password',
    );
  const staysActiveAdmin =
    (change.privileges ?? target.privileges).includes('Admin') && (change.active ?? !target.disabled);
  if (isActiveAdmin(target) && !staysActiveAdmin) {
    const others = (await enabledAdmins()).filter((userid) => userid !== target.userid);
    if (others.length === 0)
      throw ValidationError.field(
        change.active === false ? 'active' : 'privileges',
        'last_admin',
        'The last enabled Admin cannot be disabled or demoted; make another Admin first',
      );
  }
}

/** SCIM writes (PUT, PATCH, DELETE): SCIM manages provisioned accounts, never an Admin. */
export function requireScimMayWrite(target: Pick<UserRecord, 'privileges'>): void {
  if (isAdminAccount(target))
    throw new ForbiddenError('SCIM does not manage Admin accounts: an Admin signed in as themselves changes them');
}
