/**
 * The first Admin. A store with no users gets one Admin from the given credentials; an
 * existing store is left alone. Used by `npm start` (local defaults) and by the operator's
 * one-off command on a deployed stack, which never has a default password.
 */
import { findUserIdBy, getUser, listUsers, replaceUser } from '../db/entities/user.ts';
import { appendAudit, auditSubject } from '../db/audit.ts';
import { createUserAccount, setPassword } from './accounts.ts';
import { ValidationError } from '../domain/errors.ts';

export async function ensureFirstAdmin(
  email: string,
  password: string,
): Promise<{ created: boolean; userid?: number }> {
  const anyone = await listUsers({ limit: 1, offset: 0 });
  if (anyone.length > 0) return { created: false };
  try {
    const admin = await createUserAccount({
      email,
      username: 'Admin',
      password,
      unique_username: 'admin',
      privileges: ['Admin'],
    });
    return { created: true, userid: admin.userid };
  } catch (error) {
    // Another process created it first.
    if (error instanceof ValidationError) return { created: false };
    throw error;
  }
}

/**
 * Sets (or first creates) an Admin's password: the operator's path on a deployed stack. An
 * existing account with that address is made an Admin (recorded in the audit trail).
 */
export async function setAdminPassword(email: string, password: string): Promise<{ userid: number; created: boolean }> {
  const existing = await findUserIdBy('EMAIL', email);
  if (existing !== undefined) {
    const user = await getUser(existing);
    if (user && !user.privileges.includes('Admin')) {
      await replaceUser(user, { ...user, privileges: [...user.privileges, 'Admin'] });
      await appendAudit({
        action: 'user.privileges_changed',
        actor_userid: null,
        subjects: [auditSubject.user(existing)],
        details: { old: user.privileges, new: [...user.privileges, 'Admin'], via: 'admin:set-password' },
      });
    }
    await setPassword(existing, password);
    return { userid: existing, created: false };
  }
  const admin = await createUserAccount({ email, username: 'Admin', password, privileges: ['Admin'] });
  return { userid: admin.userid, created: true };
}
