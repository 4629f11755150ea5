/**
 * The learner's home (issue 42 item 3, decision 299): `/Manage`, where the user record's
 * `links.manage` points, and the form that signs an acknowledgement from it. A signed-in reader
 * only; the sign form is a CSRF-checked form POST of the session (docs/sessions.md) running the
 * same use case as POST /acknowledgements/{releaseid}/sign (shared/training/acknowledgement-sign.ts):
 * the password checked under the login throttle, an impersonation refused, audited alike.
 */
import * as z from 'zod/mini';
import type { AuthContext } from '../../shared/domain/caller.ts';
import { lazyService } from '../../shared/http/lazy-service.ts';
import { route, type RouteDef } from '../../shared/http/route.ts';
import type * as HomePages from './home.pages.ts';

/** The handlers, with the learner's home read and the signing, evaluated on first use (decision 349). */
const pages = lazyService<typeof HomePages>(() => import('./home.pages.ts'));

const CSRF_EXAMPLE = '5d41402abc4b2a76b9719d911017c592ae9f1e0c8a6e6d2b7c4f3e2a1b0c9d8e';

const releaseParams = z.object({ releaseid: z.string().check(z.regex(/^[1-9]\d{0,14}$/)) });

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
    handler: ({ caller, query, headers }) => pages.homePage(caller, query, headers),
  }),
  route({
    method: 'GET',
    path: '/Manage/acknowledgements/{releaseid}',
    site: true,
    page: true,
    auth: 'public',
    summary: "One of the reader's acknowledgements: what changed since the release they last signed, and the sign form",
    params: releaseParams,
    handler: ({ caller, params, headers }) => pages.reviewPage(caller, Number(params.releaseid), headers),
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
    handler: ({ caller, auth, params, body, headers, sourceIp }) =>
      pages.signFromPage(caller, auth as AuthContext, Number(params.releaseid), body, headers, sourceIp),
  }),
];
