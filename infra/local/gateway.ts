/**
 * The local stand-in for the HTTP API: turns each HTTP request into an API Gateway v2 event and
 * hands it to the same handler modules Lambda runs. Route matching mirrors API Gateway: an
 * exact route goes to its group; anything else goes to the `$default` fallback; CORS
 * preflights are answered here, as the HTTP API's corsPreflight does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { PathMatcher } from '../../shared/http/path-match.ts';
import { CORS_HEADERS } from '../../shared/http/respond.ts';
import { API_BASE_PATH, type RouteGroup } from '../../shared/http/route.ts';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2 | string | undefined | void>;

export interface GatewayOptions {
  groups: RouteGroup[];
  handlers: Map<string, LambdaHandler>;
  fallback: LambdaHandler;
}

const TEXT_TYPES = /^(application\/(json|xml|x-www-form-urlencoded)|text\/)/;

function lambdaContext(requestId: string, functionName: string): Context {
  return {
    awsRequestId: requestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 29000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function toEvent(
  request: IncomingMessage,
  body: Buffer,
  routeKey: string,
  pathParameters?: Record<string, string>,
  url = new URL(request.url ?? '/', 'http://localhost'),
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const queryStringParameters: Record<string, string> = {};
  // Most requests have no query string: skip building a URLSearchParams for them.
  if (url.search) {
    for (const [name, value] of url.searchParams) {
      queryStringParameters[name] = queryStringParameters[name] !== undefined ? `${queryStringParameters[name]},${value}` : value;
    }
  }
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || contentType === '' || TEXT_TYPES.test(contentType);
  const requestId = randomUUID();
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(queryStringParameters).length ? queryStringParameters : undefined,
    pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2 | string | undefined | void): void {
  if (result === undefined || typeof result === 'string') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(result ?? '');
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : undefined);
}

export function createGateway(options: GatewayOptions): Server {
  const matcher = new PathMatcher(
    options.groups.flatMap((group) => group.routes.map((route) => ({ method: route.method, path: API_BASE_PATH + route.path, value: { group: group.name, route } }))),
  );
  return createServer(async (request, response) => {
    try {
      const body = await readBody(request);
      const method = request.method ?? 'GET';
      // Parsed once per request, here; toEvent reuses it.
      const url = new URL(request.url ?? '/', 'http://localhost');
      const path = url.pathname;
      if (method === 'OPTIONS' && request.headers['access-control-request-method']) {
        response.writeHead(204, CORS_HEADERS);
        response.end();
        return;
      }
      const match = matcher.match(method, path);
      if (match) {
        const { group, route } = match.value;
        const routeKey = `${route.method} ${API_BASE_PATH}${route.path}`;
        const handler = options.handlers.get(group)!;
        const event = toEvent(request, body, routeKey, match.params, url);
        send(response, await handler(event, lambdaContext(event.requestContext.requestId, group)));
        return;
      }
      const event = toEvent(request, body, '$default', undefined, url);
      send(response, await options.fallback(event, lambdaContext(event.requestContext.requestId, 'fallback')));
    } catch (error) {
      // What API Gateway answers when the integration itself fails.
      console.error(error);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: 'Internal Server Error' }));
    }
  });
}
