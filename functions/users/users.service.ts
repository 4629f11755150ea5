/** User use cases: lookups, search, profile edits, badges, flags, bulk creation. */
import { config, siteUrl } from '../../shared/config.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { searchTokens } from '../../shared/domain/search-tokens.ts';
import {
  userName,
  userProfile,
  userSelf,
  userSummary,
  type CreatedByEmailsView,
} from '../../shared/views/user-views.ts';
import { badgeView } from '../../shared/views/badge-views.ts';
import { BADGES } from '../../shared/domain/badges.ts';
import { hashPassword } from '../../shared/accounts/passwords.ts';
import { emailSchema } from '../../shared/domain/user-rules.ts';
import { auditActor, isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { availableUniqueUsername, createUserAccount, uniquenessProblem } from '../../shared/accounts/accounts.ts';
import { requestPasswordReset } from '../../shared/accounts/password-reset.ts';
import { allTeams, teamFilterFor } from '../../shared/accounts/team-visibility.ts';
import { passwordAccepted } from '../../shared/accounts/login-throttle.ts';
import {
  type AccountActor,
  type AccountChange,
  requireMayChangeAccount,
  requireMayGrantRoles,
} from '../../shared/accounts/account-authority.ts';
import {
  findUserIdBy,
  getUser,
  getUsers,
  listCreatedUserIds,
  listUsers,
  replaceUser,
  type UserRecord,
} from '../../shared/db/entities/user.ts';
import { awardBadge, listBadges } from '../../shared/db/entities/badge.ts';
import { deleteAllTokensOf } from '../../shared/db/entities/token.ts';
import { searchIds } from '../../shared/db/search-index.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import type { UniqueKind } from '../../shared/db/uniqueness.ts';
import type { Page } from '../../shared/db/paging.ts';
import type { CreateByEmailsInput, UserListQuery, UserPatch } from './users.schemas.ts';

async function requireUser(userid: number): Promise<UserRecord> {
  const user = await getUser(userid);
  if (!user) throw new NotFoundError(`No user with userid ${userid}`);
  return user;
}

/** Summaries as the viewer may see them: `teams` lists only teams whose members they may see. */
async function summariesFor(viewer: Caller, users: UserRecord[]) {
  const shownTeams = await teamFilterFor(viewer, users);
  return users.map((user) => userSummary(user, siteUrl(), shownTeams));
}

export async function list(caller: Caller, query: UserListQuery) {
  const users = await listUsers(query, query.order === 'DESC');
  return summariesFor(
    caller,
    users.filter((user) => query.joinedSince === undefined || user.join_date >= query.joinedSince),
  );
}

export async function search(caller: Caller, term: string, page: Page) {
  return summariesFor(caller, await getUsers(await searchIds('USER', term, page.limit, page.offset)));
}

/** The deprecated name search: just ids and names. */
export async function searchNames(term: string, page: Page) {
  const users = await getUsers(await searchIds('USER', term, page.limit, page.offset));
  return users.map(userName);
}

export async function profile(caller: Caller, userid: number) {
  const user = await requireUser(userid);
  const own = caller.userid === userid;
  return userProfile(user, siteUrl(), {
    private: own || isAdmin(caller),
    shownTeams: own ? allTeams : await teamFilterFor(caller, [user]),
  });
}

/** Lookup by a unique value (Admins only: it would otherwise reveal who has an account). */
export async function findBy(kind: UniqueKind, value: string) {
  const userid = await findUserIdBy(kind, value);
  if (userid === undefined) throw new NotFoundError('No such user');
  return userProfile(await requireUser(userid), siteUrl(), { private: true, shownTeams: allTeams });
}

export async function self(caller: Caller) {
  return userSelf(await requireUser(caller.userid), siteUrl());
}

export async function badges(userid: number) {
  await requireUser(userid);
  return (await listBadges(userid)).map(badgeView);
}

/** The feature flags in force for the caller: the site's plus any set on the account. */
export async function flags(caller: Caller) {
  const user = await requireUser(caller.userid);
  return [...new Set([...config().STEPWISE_FEATURE_FLAGS, ...user.flags])];
}

const ADMIN_ONLY_FIELDS: Array<keyof UserPatch> = ['sso_userid', 'employee_id', 'privileges', 'flags'];

/**
 * Changing your own email or password needs current_password (checked under the login
 * throttle): a stolen token alone must not be enough to take the account over through a reset
 * link sent to a new address. An Admin changing someone else's is exempt.
 */
async function requireCurrentPassword(
  caller: Caller,
  userid: number,
  changes: UserPatch,
  sourceIp: string,
): Promise<void> {
  if (caller.userid !== userid || (changes.email === undefined && changes.password === undefined)) return;
  const user = await requireUser(userid);
  const changesEmail =
    changes.email !== undefined && changes.email.trim().toLowerCase() !== user.email.trim().toLowerCase();
  if (!changesEmail && changes.password === undefined) return;
  if (!changes.current_password) {
    throw ValidationError.field(
      'current_password',
      'missing_field',
      'current_password is required to change your email or password',
    );
  }
  const accepted = await passwordAccepted(
    { account: user.email, sourceIp, passwordHash: user.password_hash, password: changes.current_password },
    'Too many wrong passwords; try again later',
  );
  if (!accepted) throw ValidationError.field('current_password', 'invalid_password', 'current_password is not correct');
}

/** What a profile edit changes of the account's authority (shared/accounts/account-authority.ts). */
function accountChangeOf(before: UserRecord, changes: UserPatch): AccountChange {
  const differs = (a: string | null | undefined, b: string | null) =>
    a !== undefined && (a ?? '').trim().toLowerCase() !== (b ?? '').trim().toLowerCase();
  return {
    password: changes.password !== undefined,
    email: differs(changes.email, before.email),
    privileges: changes.privileges,
    externalIds: differs(changes.sso_userid, before.sso_userid) || differs(changes.employee_id, before.employee_id),
  };
}

/**
 * Edits a profile: the user themself or an Admin; identity and role fields only by Admins.
 * Credentials, role and external ids follow the account rule (decision 259): never a token for
 * an Admin account, never the last enabled Admin demoted.
 * A new email or password ends every other session of the account (the one making the change,
 * `sessionTokenHash`, survives when it is the account's own).
 */
export async function patch(
  actor: AccountActor,
  userid: number,
  changes: UserPatch,
  sourceIp: string,
  sessionTokenHash?: string,
) {
  const { caller } = actor;
  const admin = isAdmin(caller);
  if (caller.userid !== userid && !admin) throw new ForbiddenError('You may only edit your own profile');
  const adminFields = ADMIN_ONLY_FIELDS.filter((field) => changes[field] !== undefined);
  if (adminFields.length > 0 && !admin) throw new ForbiddenError(`Only Admins may change ${adminFields.join(', ')}`);
  if (changes.privileges && caller.userid === userid && !changes.privileges.includes('Admin')) {
    throw ValidationError.field('privileges', 'self_demotion', 'Admins cannot remove their own Admin role');
  }
  const target = await requireUser(userid);
  await requireMayChangeAccount(
    actor,
    target,
    accountChangeOf(target, changes),
    changes.current_password !== undefined,
  );
  await requireCurrentPassword(caller, userid, changes, sourceIp);

  const { before, after } = await retryOnLostRace(
    async () => {
      const before = await requireUser(userid);
      await requireMayChangeAccount(actor, before, accountChangeOf(before, changes), true);
      const { password, current_password, ...fields } = changes;
      const after: UserRecord = {
        ...before,
        ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
        ...(password !== undefined ? { password_hash: await hashPassword(password) } : {}),
      };
      after.search_tokens = searchTokens(after.username, after.unique_username);
      try {
        await replaceUser(before, after);
      } catch (error) {
        throw uniquenessProblem(error) ?? error;
      }
      return { before, after };
    },
    { attempts: 5, raceLabels: labelsIn('user'), message: 'The profile changed while it was being edited; try again' },
  );
  const emailChanged = before.email.trim().toLowerCase() !== after.email.trim().toLowerCase();
  if (changes.password !== undefined || emailChanged) {
    await deleteAllTokensOf(userid, caller.userid === userid ? sessionTokenHash : undefined);
  }
  if (changes.privileges && JSON.stringify(before.privileges) !== JSON.stringify(after.privileges)) {
    await appendAudit({
      action: 'user.privileges_changed',
      ...auditActor(caller),
      subjects: [auditSubject.user(userid)],
      details: { old: before.privileges, new: after.privileges },
    });
  }
  if (after.about_raw && !before.about_raw) {
    await awardBadge({ ...BADGES.autobiographer, userid, date: nowSeconds() });
  }
  const fresh = await requireUser(userid);
  const shownTeams = caller.userid === userid ? allTeams : await teamFilterFor(caller, [fresh]);
  return userProfile(fresh, siteUrl(), { private: true, shownTeams });
}

/** For each name, a unique_username nobody holds yet (and distinct within the batch). */
export async function suggestUniqueUsernames(names: string[]) {
  const chosen = new Set<string>();
  const result: Array<{ name: string; unique_username: string }> = [];
  for (const name of names) {
    const unique_username = await availableUniqueUsername(name, chosen);
    chosen.add(unique_username);
    result.push({ name, unique_username });
  }
  return result;
}

export async function createdUsers(caller: Caller, page: Page) {
  return summariesFor(caller, await getUsers(await listCreatedUserIds(caller.userid, page)));
}

/**
 * Creates accounts for a list of addresses; each new user gets a set-password link by mail.
 * Addresses that already have accounts, or are not addresses, are reported, not failed.
 */
export async function createByEmails(actor: AccountActor, input: CreateByEmailsInput): Promise<CreatedByEmailsView> {
  const { caller } = actor;
  requireMayGrantRoles(actor, input.privileges);
  const created: CreatedByEmailsView['created'] = [];
  const existing: string[] = [];
  const invalid: string[] = [];
  for (const raw of [...new Set(input.emails.map((email) => email.trim()))]) {
    if (!emailSchema.safeParse(raw).success) {
      invalid.push(raw);
      continue;
    }
    if ((await findUserIdBy('EMAIL', raw)) !== undefined) {
      existing.push(raw);
      continue;
    }
    try {
      const user = await createUserAccount({
        email: raw,
        username: raw.replace(/@.*$/, ''),
        privileges: input.privileges ?? ['User'],
        created_by: caller.service ? null : caller.userid,
      });
      await requestPasswordReset(raw, 'invitation');
      // A new account is in no team yet.
      created.push(userSummary(user, siteUrl(), allTeams));
    } catch (error) {
      if (error instanceof ValidationError && error.errors.some((problem) => problem.field === 'email'))
        existing.push(raw);
      else throw error;
    }
  }
  return { created, existing, invalid };
}
