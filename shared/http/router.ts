/**
 * A group's Lambda handler: a router over the group's slice of the route table, with middy
 * middleware for the request context (logger keys, X-Request-Id), tracing, access logs and
 * error mapping. Every route goes through the same steps:
 * match -> authenticate -> authorize (private site, role) -> validate params -> the route's own
 * authorize hook -> Idempotency-Key (a kept answer, or the rest once: ./idempotency.ts) ->
 * validate query, body -> handler -> format.
 */
import middy from '@middy/core';
import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { config } from '../config.ts';
import { ForbiddenError, UnauthenticatedError } from '../domain/errors.ts';
import { hasRole, type Caller } from '../domain/caller.ts';
import { authenticate } from './authenticate.ts';
import { bodyBytes, jsonBody, lowerCaseHeaders, normalizePath, queryObject } from './event.ts';
import { log } from '../observability/logger.ts';
import { recordRequest } from '../observability/metrics.ts';
import { tracing } from '../observability/tracing.ts';
import { logCaller, requestContext, requestIdOf } from './request-context.ts';
import { PathMatcher } from './path-match.ts';
import {
  CORS_HEADERS,
  ENDPOINT_NOT_FOUND,
  errorResponse,
  negotiateFormat,
  RequestError,
  respond,
  TOKEN_CACHE_CONTROL,
} from './respond.ts';
import { isReply, type PageErrorRenderer, type Reply, type RouteDef, type RouteGroup, routeUrlPath } from './route.ts';
import { openToAnonymous } from './site-access.ts';
import { checkApiScope } from './api-scopes.ts';
import { checkCsrf, CSRF_FIELD, loginRedirect, sessionTokenOf } from './session.ts';
import { ignoredFields, parseOrThrow } from './validation.ts';
import { idempotent } from './idempotency.ts';
import { requireWellFormedText } from '../domain/json-text.ts';

type Result = APIGatewayProxyStructuredResultV2;
type Format = ReturnType<typeof negotiateFormat>;

/** The route's role rule, and on a private site the token every closed route needs. */
function authorize(route: RouteDef, caller: Caller | null): void {
  if (!caller && !openToAnonymous(route, config().STEPWISE_PRIVATE_SITE))
    throw new UnauthenticatedError('Authentication required');
  const required = route.auth;
  if (required === 'public' || required === 'custom') return;
  if (!caller) throw new UnauthenticatedError('Authentication required');
  const role = required === 'admin' ? 'Admin' : required === 'author' ? 'Author' : 'User';
  if (!hasRole(caller, role)) throw new ForbiddenError(`This requires the ${role} role`);
}

/** True when an anonymous visitor may not open the route (it needs a signed-in user here). */
function closedToAnonymous(route: RouteDef): boolean {
  return (
    !openToAnonymous(route, config().STEPWISE_PRIVATE_SITE) || (route.auth !== 'public' && route.auth !== 'custom')
  );
}

/**
 * A form's fields (application/x-www-form-urlencoded), a repeated field keeping its last value.
 * What browsers send for an HTML form; only `form` routes read bodies so.
 */
function formBody(event: APIGatewayProxyEventV2): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(bodyBytes(event).toString('utf8')).entries());
}

/** Longer than any id, title or name a record may have: such a segment names nothing. */
const MAX_PATH_PARAM_LENGTH = 1024;

function parseParams(route: RouteDef, raw: Record<string, string>): unknown {
  if (Object.values(raw).some((value) => value.length > MAX_PATH_PARAM_LENGTH))
    throw new RequestError(404, ENDPOINT_NOT_FOUND);
  if (!route.params) return raw;
  const parsed = route.params.safeParse(raw);
  // A path whose id is not even well-formed names no resource.
  if (!parsed.success) throw new RequestError(404, ENDPOINT_NOT_FOUND);
  return parsed.data;
}

export function createRouter(
  routes: RouteDef[],
  options: { pageError?: PageErrorRenderer; routeError?: PageErrorRenderer } = {},
) {
  const matcher = new PathMatcher(
    routes.map((route) => ({
      method: route.method,
      path: routeUrlPath(route),
      value: route,
      plusAsSpace: route.plusAsSpace,
    })),
  );

  return async function dispatch(event: APIGatewayProxyEventV2, context?: Context): Promise<Result> {
    const path = normalizePath(event.rawPath);
    const asked = event.requestContext.http.method.toUpperCase();
    // HEAD is served as the GET wherever GET answers (RFC 9110 §9.3.2); headWithoutBody drops the body.
    const method = asked === 'HEAD' && !matcher.match(asked, path) && matcher.match('GET', path) ? 'GET' : asked;
    const query = new URLSearchParams(event.rawQueryString ?? '');
    const headers = lowerCaseHeaders(event.headers);
    // API Gateway moves the Cookie header into `event.cookies`; read both ways alike.
    if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
    const format = negotiateFormat(query, headers);

    if (method === 'OPTIONS') return { statusCode: 204, headers: CORS_HEADERS, body: '' };
    const match = matcher.match(method, path);
    if (!match) {
      const allowed: string[] = matcher.allowedMethods(path);
      if (allowed.includes('GET')) allowed.push('HEAD');
      if (allowed.length > 0)
        throw new RequestError(405, `Method ${method} not allowed`, { allow: allowed.join(', ') });
      throw new RequestError(404, ENDPOINT_NOT_FOUND);
    }
    const route = match.value;
    const renderError = route.page ? options.pageError : options.routeError;
    if (!renderError) return serve(route, match.params);
    try {
      return await serve(route, match.params);
    } catch (error) {
      return pageErrorResult(error, renderError, format);
    }

    /** Everything after the match: authentication, authorization, validation, the handler. */
    async function serve(route: RouteDef, pathParams: Record<string, string>): Promise<Result> {
      // The session cookie counts only where a route takes it (decision 216): no other API route
      // reads it, so a page of another site cannot make a browser call them with its session.
      const auth = route.selfAuthenticated
        ? { user: null, appId: headers['x-app-id'] }
        : await authenticate(headers, route.page || route.sessionCookie ? sessionTokenOf(headers, method) : undefined);
      if (auth.user) logCaller(auth.user.userid);
      if (route.page && !auth.user && closedToAnonymous(route)) {
        const search = event.rawQueryString ? `?${event.rawQueryString}` : '';
        return toResult(loginRedirect(path + search), format);
      }
      authorize(route, auth.user);
      checkApiScope(route, method, auth.user);
      // Text that is not well-formed Unicode (a lone surrogate) is refused in params, query and
      // body alike, before any handler can store it (docs/hostile-input.md).
      const params = parseParams(route, requireWellFormedText(pathParams, 'path'));
      // Route-level authorization (custom routes) is decided before the query or body is read.
      if (route.authorize) await route.authorize({ params, auth, headers });
      // A key is looked up only now: after authentication and authorization, scoped to the caller.
      return idempotent({ route, event, headers, caller: auth.user, context }, async () => {
        // Malformed JSON (400) is a syntax error of the request: it comes before any 422.
        let body: unknown;
        let rawBody: Buffer | undefined;
        if (route.rawBody) rawBody = bodyBytes(event);
        else if (route.form) {
          body = requireWellFormedText(formBody(event), 'body');
          // A form POST is this site's own only with the token of this browser's cookie (decision 217).
          checkCsrf(headers, (body as Record<string, string>)[CSRF_FIELD]);
        } else body = requireWellFormedText(jsonBody(event), 'body');
        const rawQuery = requireWellFormedText(queryObject(query), 'query');
        const parsedQuery = route.query ? parseOrThrow(route.query, rawQuery, 'query') : {};
        // Fields the body schema does not declare are dropped, and named in a header (decision 315).
        const ignored = !route.rawBody && !route.form && route.body ? ignoredFields(route.body, body) : [];
        if (!route.rawBody && route.body) body = parseOrThrow(route.body, body ?? {}, 'body');
        const result = await route.handler({
          params,
          query: parsedQuery,
          body,
          rawBody,
          // authorize() has rejected anonymous requests to user/author/admin routes, so `caller` is
          // non-null wherever the route's type says so.
          caller: auth.user,
          auth,
          headers,
          requestId: event.requestContext.requestId,
          sourceIp: event.requestContext.http.sourceIp,
          rawQueryString: event.rawQueryString ?? '',
        });
        const ignoredHeader = ignored.length ? { 'x-stepwise-ignored-fields': ignored.join(', ') } : undefined;
        if (isReply(result))
          return toResult(
            ignoredHeader ? { ...result, headers: { ...result.headers, ...ignoredHeader } } : result,
            format,
          );
        return respond(route.status ?? 200, result, format, ignoredHeader);
      });
    }
  };
}

/** Middy middleware: the answer to HEAD is the GET's status and headers without its body. */
export function headWithoutBody(): middy.MiddlewareObj<APIGatewayProxyEventV2, Result> {
  const strip = async (request: middy.Request<APIGatewayProxyEventV2, Result>) => {
    if (request.event.requestContext.http.method.toUpperCase() !== 'HEAD' || !request.response) return;
    const { body: _body, isBase64Encoded: _encoded, ...rest } = request.response;
    request.response = { ...rest, body: '' };
  };
  return { after: strip, onError: strip };
}

/**
 * A page's error as a page (the group's `pageError`), with the status and headers (Retry-After)
 * the API would answer. Unexpected errors go on to the error mapping, which logs them.
 */
function pageErrorResult(error: unknown, pageError: PageErrorRenderer, format: Format): Result {
  const mapped = errorResponse(error);
  if (mapped.unexpected) throw error;
  const message = (mapped.body as { message?: unknown } | undefined)?.message;
  const page = pageError(mapped.status, typeof message === 'string' ? message : 'This page cannot be shown', error);
  return toResult({ ...page, headers: { ...page.headers, ...mapped.headers } }, format);
}

function toResult(reply: Reply, format: Format): Result {
  // An answer setting a cookie (a session) is nobody else's: no cache keeps it (issue 35 item 9).
  const result = reply.cookies?.length
    ? { ...reply, headers: { 'cache-control': TOKEN_CACHE_CONTROL, ...reply.headers } }
    : reply;
  const cookies = result.cookies?.length ? { cookies: result.cookies } : {};
  if (result.raw) {
    const bytes = Buffer.isBuffer(result.body);
    return {
      statusCode: result.status,
      headers: { ...CORS_HEADERS, ...result.headers },
      body: bytes ? (result.body as Buffer).toString('base64') : String(result.body),
      ...(bytes ? { isBase64Encoded: true } : {}),
      ...cookies,
    };
  }
  return { ...respond(result.status, result.body, format, result.headers), ...cookies };
}

/** Middy middleware: turns any thrown error into the documented response. */
function errorMapping(): middy.MiddlewareObj<APIGatewayProxyEventV2, Result> {
  return {
    onError: async (request) => {
      const mapped = errorResponse(request.error);
      // Named here, not only by the logger's keys: locally concurrent requests share the logger.
      if (mapped.unexpected)
        log().error('Unhandled error', { requestId: requestIdOf(request.event), error: request.error as Error });
      const query = new URLSearchParams(request.event.rawQueryString ?? '');
      const format = negotiateFormat(query, lowerCaseHeaders(request.event.headers));
      request.response = respond(mapped.status, mapped.body, format, mapped.headers);
    },
  };
}

/** Middy middleware: one metrics record per request, and a log line for server errors. */
function accessLog(group: string): middy.MiddlewareObj<APIGatewayProxyEventV2, Result> {
  const started = new WeakMap<object, number>();
  const write = (request: middy.Request<APIGatewayProxyEventV2, Result>) => {
    const status = request.response?.statusCode ?? 500;
    const durationMs = Date.now() - (started.get(request) ?? Date.now());
    // API Gateway's access log already has a line per request (docs/operations.md, "Logs");
    // here only server errors, to join the function log to it by requestId (DEBUG: every request).
    // The level is checked first: Powertools reads the environment for every call, even one it drops.
    const server = status >= 500;
    if (server || log().level <= LogLevelThreshold.DEBUG) {
      const { http, requestId } = request.event.requestContext;
      const line = { requestId, group, method: http.method, path: request.event.rawPath, status, durationMs };
      if (server) log().warn('request', line);
      else log().debug('request', line);
    }
    recordRequest(group, status, durationMs);
  };
  return {
    before: async (request) => {
      started.set(request, Date.now());
    },
    after: async (request) => write(request),
    onError: async (request) => write(request),
  };
}

/** The Lambda handler for one route group. */
export function createGroupHandler(group: RouteGroup) {
  const dispatch = createRouter(group.routes, { pageError: group.pageError, routeError: group.routeError });
  return middy<APIGatewayProxyEventV2, Result, Error, Context>()
    .use(requestContext())
    .use(headWithoutBody())
    .use(tracing())
    .use(accessLog(group.name))
    .use(errorMapping())
    .handler(dispatch);
}
