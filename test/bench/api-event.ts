/** API Gateway (HTTP API, payload 2.0) events for the bench's handlers invoked in-process. */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * The event API Gateway hands a group's function for `method routePath` (route syntax, e.g.
 * `/users/{userid}`) with `params` filled in.
 */
export function apiEvent(
  method: string,
  routePath: string,
  options: { params?: Record<string, string>; token?: string; body?: unknown; query?: string } = {},
): APIGatewayProxyEventV2 {
  const params = options.params ?? {};
  const routeKey = `${method} /api/2.0${routePath}`;
  const path = `/api/2.0${routePath.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]))}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: options.query ?? '',
    headers: {
      host: 'bench.local',
      'user-agent': 'bench',
      ...(options.token ? { authorization: `api ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    pathParameters: Object.keys(params).length ? params : undefined,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'bench.local',
      domainPrefix: 'bench',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
}
