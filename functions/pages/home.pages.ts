/**
 * The learner's home pages' handlers (home.routes.ts declares their routes; decision 299),
 * evaluated with the learner's home read, the acknowledgement signing and their renderers when
 * one of them is first asked for (`lazyService`, decision 349).
 */
import type { AuthContext, Caller } from '../../shared/domain/caller.ts';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import { reply } from '../../shared/http/route.ts';
import { formCsrf } from '../../shared/http/session.ts';
import { sign } from '../../shared/training/acknowledgement-sign.ts';
import { acknowledgementContent } from './content/acknowledgement-page.ts';
import { learnerHomeContent, type HomeNotice } from './content/learner-home-page.ts';
import { asPage, htmlReply, pageHeaders } from './html/page-reply.ts';
import { acknowledgementReview, learnerHome } from './learner-home.service.ts';

export const HOME_PATH = '/Manage';

function signedIn(caller: Caller | null): Caller {
  if (!caller) throw new UnauthenticatedError('Authentication required');
  return caller;
}

/** The page of one acknowledgement: where it is, what changed, the sign form (with the form's problem). */
export function acknowledgementPath(releaseid: number): string {
  return `${HOME_PATH}/acknowledgements/${releaseid}`;
}

async function reviewReply(
  caller: Caller,
  headers: Record<string, string>,
  releaseid: number,
  problem?: string,
  status = 200,
) {
  const { token, cookies } = formCsrf(headers);
  const review = await acknowledgementReview(caller, releaseid);
  const page = htmlReply(status, {
    title: `Acknowledge ${review.title}`,
    caller,
    path: acknowledgementPath(releaseid),
    content: acknowledgementContent(review, token, problem),
  });
  return cookies.length > 0 ? { ...page, cookies } : page;
}

async function homeReply(
  caller: Caller,
  headers: Record<string, string>,
  notice: HomeNotice,
  status = 200,
  team?: number,
) {
  const { token, cookies } = formCsrf(headers);
  const home = await learnerHome(caller, team);
  const page = htmlReply(status, {
    title: 'My training',
    caller,
    path: '/Manage',
    content: learnerHomeContent(home, token, notice),
  });
  return cookies.length > 0 ? { ...page, cookies } : page;
}

/** A refusal of the signature said on the form, with the status the API would answer. */
function signProblem(error: unknown): { status: number; message: string } | undefined {
  if (error instanceof ValidationError) return { status: 422, message: 'That password is not right. Try again.' };
  if (error instanceof TooManyRequestsError)
    return { status: 429, message: `Too many attempts. Try again in ${error.retryAfterSeconds} seconds.` };
  if (error instanceof ConflictError) return { status: 409, message: error.message };
  if (error instanceof ForbiddenError) return { status: 403, message: error.message };
  return undefined;
}

/** `/Manage`: my courses and stages, modules to play, acknowledgements to sign, my levels, my teams. */
export function homePage(
  caller: Caller | null,
  query: { signed?: string; team?: string },
  headers: Record<string, string>,
) {
  return asPage(caller, query.team ? `${HOME_PATH}?team=${query.team}` : HOME_PATH, async () =>
    homeReply(
      signedIn(caller),
      headers,
      { signed: query.signed ? Number(query.signed) : undefined },
      200,
      query.team ? Number(query.team) : undefined,
    ),
  );
}

/** One of the reader's acknowledgements: what changed since the release they last signed, and the sign form. */
export function reviewPage(caller: Caller | null, releaseid: number, headers: Record<string, string>) {
  return asPage(caller, acknowledgementPath(releaseid), () => reviewReply(signedIn(caller), headers, releaseid));
}

/** The sign form's POST: signed (303 home), or the form again with its problem. */
export async function signFromPage(
  caller: Caller,
  auth: AuthContext,
  releaseid: number,
  body: { password: string; from?: 'review' | 'home' },
  headers: Record<string, string>,
  sourceIp: string,
) {
  const again = (status: number, message: string) =>
    body.from === 'review'
      ? asPage(caller, acknowledgementPath(releaseid), () => reviewReply(caller, headers, releaseid, message, status))
      : homeReply(caller, headers, { problem: { releaseid, message } }, status);
  if (!body.password) return again(422, 'Enter your password to sign.');
  try {
    await sign(caller, auth, releaseid, { password: body.password }, sourceIp);
  } catch (error) {
    if (error instanceof NotFoundError) return asPage(caller, HOME_PATH, () => Promise.reject(error));
    const problem = signProblem(error);
    if (problem) return again(problem.status, problem.message);
    throw error;
  }
  return reply(303, undefined, { location: `${HOME_PATH}?signed=${releaseid}`, ...pageHeaders(caller) });
}
