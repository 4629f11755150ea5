/**
 * The end of a company sign-in (decision 286): what a verified sign-in at an OIDC or SAML
 * provider was started for: a step-up before signing, an over-the-shoulder signature, or a
 * session of the account it names (sso-accounts.ts).
 */
import { ForbiddenError } from '../../shared/domain/errors.ts';
import { log } from '../../shared/observability/logger.ts';
import { accountFor } from './sso-accounts.ts';
import type { SignInEnd, VerifiedSignIn } from './sso-flow.ts';
import { completeStepUp } from './step-up.service.ts';

export async function finishCompanySignIn(signIn: VerifiedSignIn): Promise<SignInEnd> {
  const { provider, identity } = signIn;
  if (signIn.stepUpUserid !== null || signIn.signFor !== null) {
    const location = await completeStepUp(provider, {
      ssoUserid: identity.ssoUserid,
      stepUpUserid: signIn.stepUpUserid,
      signFor: signIn.signFor,
      authTime: signIn.authTime,
      returnTo: signIn.returnTo,
    });
    return { kind: 'back', location };
  }
  try {
    const user = await accountFor(provider, identity);
    return { kind: 'session', userid: user.userid, returnTo: signIn.returnTo };
  } catch (error) {
    // The visitor is told the account is not known; the Admin's log says why.
    if (error instanceof ForbiddenError && signIn.diagnostics)
      log().warn('A company sign-in was refused', {
        providerid: provider.providerid,
        reason: error.message,
        ...signIn.diagnostics(),
      });
    throw error;
  }
}
