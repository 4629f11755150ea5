/**
 * The learner's home (issue 42 item 3, decision 299): `/Manage`, where the user record's
 * `links.manage` points, and the form that signs an acknowledgement from it. A signed-in reader
 * only; the sign form is a CSRF-checked form POST of the session (docs/sessions.md) running the
 * same use case as POST /acknowledgements/{releaseid}/sign (shared/training/acknowledgement-sign.ts):
 * the password checked under the login throttle, an impersonation refused, audited alike.
 */
import * as z from 'zod/mini';
import type { AuthContext, Caller } from '../../shared/domain/caller.ts';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import { route, reply, type RouteDef } from '../../shared/http/route.ts';
import { formCsrf } from '../../shared/http/session.ts';
import { sign } from '../../shared/training/acknowledgement-sign.ts';
import { acknowledgementContent } from './content/acknowledgement-page.ts';
import { learnerHomeContent, type HomeNotice } from './content/learner-home-page.ts';
import { asPage, htmlReply, pageHeaders } from './html/page-reply.ts';
import { acknowledgementReview, learnerHome } from './learner-home.service.ts';

export const HOME_PATH = '/Manage';
const CSRF_EXAMPLE = '5d41402abc4b2a76b9719d911017c592ae9f1e0c8a6e6d2b7c4f3e2a1b0c9d8e';

function signedIn(caller: Caller | null): Caller {
  if (!caller) throw new UnauthenticatedError('Authentication required');
  return caller;
}

const releaseParams = z.object({ releaseid: z.string().check(z.regex(/^[1-9]\d{0,14}$/)) });

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

export const homeRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/Manage',
    site: true,
    page: true,
    auth: 'public',
    summary:
      "The learner's home: my courses and stages, modules to play, acknowledgements to sign, my levels, my teams",
    query: z.object({
      signed: z.optional(z.string().check(z.regex(/^\d{1,15}$/))),
      // A team the reader manages (its owner, or an Admin): its matrix instead of the owned ones.
      team: z.optional(z.string().check(z.regex(/^[1-9]\d{0,14}$/))),
    }),
    queryExample: { signed: '31' },
    handler: ({ caller, query, headers }) =>
      asPage(caller, query.team ? `${HOME_PATH}?team=${query.team}` : HOME_PATH, async () =>
        homeReply(
          signedIn(caller),
          headers,
          { signed: query.signed ? Number(query.signed) : undefined },
          200,
          query.team ? Number(query.team) : undefined,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/Manage/acknowledgements/{releaseid}',
    site: true,
    page: true,
    auth: 'public',
    summary: "One of the reader's acknowledgements: what changed since the release they last signed, and the sign form",
    params: releaseParams,
    handler: ({ caller, params, headers }) => {
      const releaseid = Number(params.releaseid);
      return asPage(caller, acknowledgementPath(releaseid), () => reviewReply(signedIn(caller), headers, releaseid));
    },
  }),
  route({
    method: 'POST',
    path: '/Manage/acknowledgements/{releaseid}/sign',
    site: true,
    page: true,
    form: true,
    auth: 'user',
    personOnly: true,
    summary: "Sign an acknowledgement from the learner's home with one's password (as POST /acknowledgements/…/sign)",
    params: releaseParams,
    body: z.object({
      password: z._default(z.string().check(z.maxLength(512)), ''),
      csrf: z.string(),
      // Which page the form was on: its problem is said there (the acknowledgement's page, or home).
      from: z.optional(z.enum(['review', 'home'])),
    }),
    example: { password: 'your password', csrf: CSRF_EXAMPLE },
    handler: async ({ caller, auth, params, body, headers, sourceIp }) => {
      const releaseid = Number(params.releaseid);
      const again = (status: number, message: string) =>
        body.from === 'review'
          ? asPage(caller, acknowledgementPath(releaseid), () =>
              reviewReply(caller, headers, releaseid, message, status),
            )
          : homeReply(caller, headers, { problem: { releaseid, message } }, status);
      if (!body.password) return again(422, 'Enter your password to sign.');
      try {
        await sign(caller, auth as AuthContext, releaseid, { password: body.password }, sourceIp);
      } catch (error) {
        if (error instanceof NotFoundError) return asPage(caller, HOME_PATH, () => Promise.reject(error));
        const problem = signProblem(error);
        if (problem) return again(problem.status, problem.message);
        throw error;
      }
      return reply(303, undefined, { location: `${HOME_PATH}?signed=${releaseid}`, ...pageHeaders(caller) });
    },
  }),
];
