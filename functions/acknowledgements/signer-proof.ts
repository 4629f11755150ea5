/**
 * The one place the countersignature proves its signer (docs/competency.md): an impersonation
 * token cannot sign, and the signer re-enters their password (e-signature.ts). Kept apart so the
 * way of proving a signer (password today, SSO step-up next) changes here only.
 */
import { checkSignerPassword, refuseImpersonatedSignature } from '../../shared/accounts/e-signature.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import type { AuthContext, Caller } from '../../shared/domain/caller.ts';

export async function proveSigner(
  caller: Caller,
  auth: AuthContext,
  password: string,
  sourceIp: string,
): Promise<{ method: 'password' }> {
  refuseImpersonatedSignature(auth);
  await checkSignerPassword(await getUser(caller.userid), password, sourceIp);
  return { method: 'password' };
}
