/**
 * Over-the-shoulder signing by someone who signs in through an identity provider (issue 28 §4,
 * decision 238). On the signed-in caller's device, GET /sso/sign_for starts a forced fresh login
 * at the provider (OIDC prompt=login and max_age, SAML ForceAuthn) bound to one signoff or
 * approval request. The callback finds the account of whoever signed in there (an account
 * already here: no just-in-time creation), checks they may sign, and hands the caller's device
 * the same single-use token a password would have bought (approvals: a signing token;
 * signoffs: a finalize token) in the redirect's fragment. The device's session is not changed.
 */
import { nowSeconds } from '../../shared/clock.ts';
import type { SignedInAuth } from '../../shared/domain/caller.ts';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthenticatedError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import { signingRefusal } from '../../shared/domain/approval-flow.ts';
import type { AuthenticatedBy } from '../../shared/domain/signature-auth.ts';
import {
  getIdentityProvider,
  listIdentityProviders,
  type IdentityProviderRecord,
  type SignFor,
} from '../../shared/db/entities/identity-provider.ts';
import { getRequest } from '../../shared/db/entities/approval-request.ts';
import { getSignoffRequest } from '../../shared/db/entities/signoff.ts';
import { findUserIdBy, getUser } from '../../shared/db/entities/user.ts';
import { issueSigningToken, refuseImpersonatedSignature } from '../../shared/accounts/e-signature.ts';
import { issueFinalizeToken } from '../../shared/training/over-the-shoulder.ts';
import { safeReturnTo } from '../../shared/http/session.ts';
import { startCompanyLogin } from './company-login.service.ts';
import type { ProviderRedirect } from './sso-flow.ts';

export interface SignForQuery {
  signoff_requestid?: number;
  approval_requestid?: number;
  providerid?: string;
  returnTo?: string;
}

/** The provider to sign in at: the one named, else the site's only OIDC or SAML provider. */
async function signingProvider(providerid: string | undefined): Promise<IdentityProviderRecord> {
  if (providerid !== undefined) {
    const named = await getIdentityProvider(providerid);
    if (!named?.enabled || named.kind === 'remote_login') throw new NotFoundError(`No company sign-in ${providerid}`);
    return named;
  }
  const usable = (await listIdentityProviders()).filter((p) => p.enabled && p.kind !== 'remote_login');
  if (usable.length !== 1)
    throw ValidationError.field(
      'providerid',
      usable.length === 0 ? 'not_found' : 'missing_field',
      usable.length === 0
        ? 'This site has no company sign-in'
        : 'This site has several identity providers: name the signer’s with providerid',
    );
  return usable[0]!;
}

/** What is to be signed, checked open before anyone is sent to the provider. */
async function subjectOf(query: SignForQuery): Promise<Pick<SignFor, 'subject' | 'subjectid'>> {
  if ((query.signoff_requestid === undefined) === (query.approval_requestid === undefined))
    throw ValidationError.field(
      'signoff_requestid',
      'missing_field',
      'Name exactly one of signoff_requestid and approval_requestid',
    );
  if (query.signoff_requestid !== undefined) {
    const request = await getSignoffRequest(query.signoff_requestid);
    if (!request) throw new NotFoundError(`No signoff request with signoff_requestid ${query.signoff_requestid}`);
    if (request.state !== 'requested') throw new ConflictError(`This signoff request is ${request.state}`);
    return { subject: 'signoff_request', subjectid: request.signoff_requestid };
  }
  const request = await getRequest(query.approval_requestid!);
  if (!request) throw new NotFoundError(`No approval request with approval_requestid ${query.approval_requestid}`);
  if (request.status !== 'pending') throw new ConflictError(`This approval request is ${request.status}`);
  return { subject: 'approval_request', subjectid: request.approval_requestid };
}

/** GET /sso/sign_for: sends the person present to their provider, for this one signature. */
export async function startSignFor(auth: SignedInAuth, query: SignForQuery): Promise<ProviderRedirect> {
  refuseImpersonatedSignature(auth);
  const subject = await subjectOf(query);
  const provider = await signingProvider(query.providerid);
  return startCompanyLogin(provider.providerid, {
    returnTo: query.returnTo ?? '/',
    signFor: { ...subject, caller_userid: auth.user.userid },
  });
}

/**
 * The callback of a sign_for login: the person who just signed in at the provider, freshly
 * (within the provider's window), gets the caller's device a single-use token for the request:
 * answers where the browser goes back to, the token in the fragment.
 */
export async function completeSignFor(
  provider: IdentityProviderRecord,
  input: { ssoUserid: string; authTime: number | undefined; signFor: SignFor; returnTo: string },
): Promise<string> {
  const userid = await findUserIdBy('SSO', input.ssoUserid);
  const person = userid === undefined ? undefined : await getUser(userid);
  if (!person || person.disabled)
    throw new ForbiddenError('The person who signed in at the identity provider has no account here that may sign');
  if (input.authTime === undefined || nowSeconds() - input.authTime > provider.step_up_max_age_seconds)
    throw new UnauthenticatedError('The identity provider did not sign this person in just now; try again');
  const authenticatedBy: AuthenticatedBy = {
    method: provider.kind as 'oidc' | 'saml',
    providerid: provider.providerid,
    auth_time: input.authTime,
  };
  const { subject, subjectid, caller_userid } = input.signFor;
  let fragment: URLSearchParams;
  if (subject === 'approval_request') {
    const request = await getRequest(subjectid);
    if (!request) throw new NotFoundError(`No approval request with approval_requestid ${subjectid}`);
    if (request.status !== 'pending') throw new ConflictError(`This approval request is ${request.status}`);
    const refusal = signingRefusal(request, person);
    if (refusal) throw new ForbiddenError(refusal);
    const token = await issueSigningToken(person, subjectid, caller_userid, authenticatedBy);
    fragment = new URLSearchParams({
      signing_token: token.signing_token,
      expires_at: String(token.expires_at),
      approval_requestid: String(subjectid),
      signer_userid: String(person.userid),
    });
  } else {
    const request = await getSignoffRequest(subjectid);
    if (!request) throw new NotFoundError(`No signoff request with signoff_requestid ${subjectid}`);
    const token = await issueFinalizeToken({ userid: caller_userid }, request, person.userid, authenticatedBy);
    fragment = new URLSearchParams({
      token: token.token,
      expires_at: String(token.expires_at),
      signoff_requestid: String(subjectid),
      signer_userid: String(token.signer_userid),
    });
  }
  // The token travels in the fragment: the browser keeps it; no server's log or Referer sees it.
  return `${safeReturnTo(input.returnTo).split('#')[0]}#${fragment}`;
}
