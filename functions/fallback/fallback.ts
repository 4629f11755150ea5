/**
 * The `$default` route: requests API Gateway matched to no route. With the route manifest it
 * tells a wrong method (405 + Allow) from an unknown path (404 "Endpoint not found"), and
 * serves paths that differ from a route only by a trailing slash by handing the event to the
 * group that owns the route.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { embeddedRouteManifest, type ManifestEntry } from '../../shared/http/embedded.ts';
import { lowerCaseHeaders, normalizePath } from '../../shared/http/event.ts';
import { PathMatcher } from '../../shared/http/path-match.ts';
import { CORS_HEADERS, ENDPOINT_NOT_FOUND, negotiateFormat, respond } from '../../shared/http/respond.ts';
import { withRequestId } from '../../shared/http/request-context.ts';
import { routeUrlPath } from '../../shared/http/route.ts';
import { isScimPath, SCIM_CONTENT_TYPE, scimErrorBody } from '../../shared/http/scim-error.ts';

export type GroupInvoker = (group: string, event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export function createFallback(manifest: ManifestEntry[], invokeGroup: GroupInvoker) {
  const matcher = new PathMatcher(
    manifest.map((entry) => ({ method: entry.method, path: routeUrlPath(entry), value: entry })),
  );

  // Every answer names the request (X-Request-Id), as the groups' answers do.
  return async function fallback(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    const result = withRequestId(await answer(event), event);
    // An answer to HEAD has no body, whichever answer it is.
    return event.requestContext.http.method.toUpperCase() === 'HEAD' ? { ...result, body: '' } : result;
  };

  async function answer(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    const method = event.requestContext.http.method.toUpperCase();
    const format = negotiateFormat(new URLSearchParams(event.rawQueryString ?? ''), lowerCaseHeaders(event.headers));
    if (method === 'OPTIONS') return { statusCode: 204, headers: CORS_HEADERS, body: '' };
    const path = normalizePath(event.rawPath);
    // HEAD goes to the GET's group wherever GET answers (RFC 9110 §9.3.2); the group drops the body.
    const head = method === 'HEAD' && !matcher.match(method, path) ? matcher.match('GET', path) : undefined;
    const match = head ?? matcher.match(method, path);
    if (match && (head || path !== event.rawPath)) {
      const entry = match.value;
      return invokeGroup(entry.group, {
        ...event,
        rawPath: path,
        routeKey: `${entry.method} ${routeUrlPath(entry)}`,
        pathParameters: match.params,
      });
    }
    const allowed: string[] = matcher.allowedMethods(path);
    if (allowed.includes('GET')) allowed.push('HEAD');
    const allow = allowed.length > 0 ? { allow: allowed.join(', ') } : undefined;
    if (isScimPath(path)) {
      const status = allow ? 405 : 404;
      const detail = allow ? `Method ${method} not allowed` : ENDPOINT_NOT_FOUND;
      const body = JSON.stringify(scimErrorBody(status, detail));
      return { statusCode: status, headers: { ...CORS_HEADERS, 'content-type': SCIM_CONTENT_TYPE, ...allow }, body };
    }
    if (allow) return respond(405, { message: `Method ${method} not allowed` }, format, allow);
    // The real service's words; the header names where the API's routes are described (RFC 8631).
    return respond(404, { message: ENDPOINT_NOT_FOUND }, format, { link: '</api/2.0/doc>; rel="service-doc"' });
  }
}

export function loadManifest(): ManifestEntry[] {
  return embeddedRouteManifest();
}
