/**
 * A route's `auth` level types its handler's `caller`: non-null on user / author / admin routes,
 * nullable on public and custom ones. The type assertions are checked by `npm run typecheck`;
 * the dispatch tests show the router hands over the caller it authorized.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import type { Caller } from '../../shared/domain/caller.ts';
import { route, type CallerFor, type RouteDef, type RouteGroup, type RouteRequest } from '../../shared/http/route.ts';
import { createRouter } from '../../shared/http/router.ts';

const signedIn = (level: 'user' | 'author' | 'admin') =>
  route({
    method: 'GET',
    path: `/typed/${level}`,
    auth: level,
    summary: 'A signed-in route',
    handler: async ({ caller, auth }) => {
      expectTypeOf(caller).toEqualTypeOf<Caller>();
      expectTypeOf(auth.user).toEqualTypeOf<Caller>();
      return { userid: caller.userid };
    },
  });

const publicRoute = route({
  method: 'GET',
  path: '/typed/public',
  auth: 'public',
  // Anonymous requests reach it on a private site too (login-like), so the test sees `null`.
  openOnPrivateSite: true,
  summary: 'A public route',
  handler: async ({ caller, auth }) => {
    expectTypeOf(caller).toEqualTypeOf<Caller | null>();
    expectTypeOf(auth.user).toEqualTypeOf<Caller | null>();
    // A public route may be called anonymously: reading the caller without a check does not compile.
    // @ts-expect-error 'caller' is possibly 'null'
    const unchecked = () => caller.userid;
    expectTypeOf(unchecked).returns.toEqualTypeOf<number>();
    return { userid: caller?.userid ?? null };
  },
});

const customRoute = route({
  method: 'POST',
  path: '/typed/custom',
  auth: 'custom',
  openOnPrivateSite: true,
  summary: 'A route that decides for itself',
  body: z.object({ name: z.string() }),
  handler: async ({ caller, body }) => {
    expectTypeOf(caller).toEqualTypeOf<Caller | null>();
    expectTypeOf(body).toEqualTypeOf<{ name: string }>();
    return { name: body.name, anonymous: caller === null };
  },
});

function event(method: string, path: string, body?: unknown): APIGatewayProxyEventV2 {
  return {
    rawPath: `/api/2.0${path}`,
    rawQueryString: '',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { http: { method, sourceIp: '203.0.113.9' }, requestId: 'route-types' },
  } as unknown as APIGatewayProxyEventV2;
}

describe('route types', () => {
  it('infers the auth literal and derives the caller type from it', () => {
    type NoParams = Record<string, never>;
    expectTypeOf(signedIn('user')).toEqualTypeOf<
      RouteDef<NoParams, NoParams, undefined, 'user' | 'author' | 'admin'>
    >();
    expectTypeOf(publicRoute.auth).toEqualTypeOf<'public'>();
    expectTypeOf<CallerFor<'user'>>().toEqualTypeOf<Caller>();
    expectTypeOf<CallerFor<'author'>>().toEqualTypeOf<Caller>();
    expectTypeOf<CallerFor<'admin'>>().toEqualTypeOf<Caller>();
    expectTypeOf<CallerFor<'public'>>().toEqualTypeOf<Caller | null>();
    expectTypeOf<CallerFor<'custom'>>().toEqualTypeOf<Caller | null>();
    // An untyped request (a table consumer that does not know the route) assumes the worst.
    expectTypeOf<RouteRequest['caller']>().toEqualTypeOf<Caller | null>();
  });

  it('lets every kind of route share one group table', () => {
    const routes: RouteGroup['routes'] = [signedIn('user'), signedIn('admin'), publicRoute, customRoute];
    expect(routes.map((entry) => entry.auth)).toEqual(['user', 'admin', 'public', 'custom']);
  });

  it('hands an anonymous caller to public and custom handlers as null', async () => {
    const dispatch = createRouter([publicRoute, customRoute]);
    const fromPublic = await dispatch(event('GET', '/typed/public'));
    expect(fromPublic.statusCode).toBe(200);
    expect(JSON.parse(String(fromPublic.body))).toEqual({ userid: null });
    const fromCustom = await dispatch(event('POST', '/typed/custom', { name: 'x' }));
    expect(JSON.parse(String(fromCustom.body))).toEqual({ name: 'x', anonymous: true });
  });

  it('never runs a signed-in handler for an anonymous request', async () => {
    const dispatch = createRouter([signedIn('user')]);
    await expect(dispatch(event('GET', '/typed/user'))).rejects.toMatchObject({ name: 'UnauthenticatedError' });
  });
});
