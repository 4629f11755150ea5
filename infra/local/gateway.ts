/**
 * The local stand-in for the HTTP API: turns each HTTP request into an API Gateway v2 event and
 * hands it to the same handler modules Lambda runs. Route matching mirrors API Gateway: an
 * exact route goes to its group; anything else goes to the `$default` fallback; CORS
 * preflights are answered here, as the HTTP API's corsPreflight does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { PathMatcher } from '../../shared/http/path-match.ts';
import { CORS_HEADERS } from '../../shared/http/respond.ts';
import { type RouteGroup, routeUrlPath } from '../../shared/http/route.ts';

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2 | string | undefined | undefined>;

export interface GatewayOptions {
  groups: RouteGroup[];
  handlers: Map<string, LambdaHandler>;
  fallback: LambdaHandler;
}

const TEXT_TYPES = /^(application\/(json|xml|x-www-form-urlencoded)|text\/)/;

/**
 * API Gateway's payload quota (HTTP API: 10 MB request bodies). A bigger body is refused with
 * 413 as soon as it is known to be too big: by its Content-Length before a byte of it is read,
 * or, for a chunked body, at the byte that crosses the cap. Nothing past the cap is buffered.
 */
export const MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;

// The context's functions, made once rather than per request.
const remainingTime = () => 29000;
const ignored = () => undefined;

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
    getRemainingTimeInMillis: remainingTime,
    done: ignored,
    fail: ignored,
    succeed: ignored,
  };
}

function declaredTooLarge(request: IncomingMessage): boolean {
  return Number(request.headers['content-length'] ?? 0) > MAX_REQUEST_BODY_BYTES;
}

/**
 * The whole body, or undefined once it passes MAX_REQUEST_BODY_BYTES: reading stops there
 * (the request is paused, not drained). Not `for await`: leaving that loop early destroys the
 * socket before the 413 could be written.
 */
const NO_BODY = Buffer.alloc(0);

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  if (declaredTooLarge(request)) return Promise.resolve(undefined);
  // HTTP/1.1: a request with neither header has no body (most GETs); nothing to wait for.
  if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) {
    return Promise.resolve(NO_BODY);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      request.off('data', onData).off('end', onEnd).off('error', reject);
      request.pause();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_REQUEST_BODY_BYTES) {
        stop();
        resolve(undefined);
      } else chunks.push(chunk);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    request.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/**
 * 413 in API Gateway's shape; the connection is closed once the answer is out, so the rest
 * of the body is never read (Node's server then ends the socket instead of draining it).
 */
function refuseTooLarge(response: ServerResponse): void {
  const body = JSON.stringify({
    message: `Request Entity Too Large: bodies are limited to ${MAX_REQUEST_BODY_BYTES} bytes`,
  });
  response.shouldKeepAlive = false;
  response.writeHead(413, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
    ...CORS_HEADERS,
  });
  response.end(body);
}

export function toEvent(
  request: IncomingMessage,
  body: Buffer,
  routeKey: string,
  pathParameters?: Record<string, string>,
  url = new URL(request.url ?? '/', 'http://localhost'),
  requestId: string = randomUUID(),
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // As API Gateway's payload 2.0: the Cookie header arrives as `cookies`, not among the headers.
  const cookies = headers.cookie?.split(/;\s*/).filter((part) => part !== '');
  delete headers.cookie;
  const queryStringParameters: Record<string, string> = {};
  // Most requests have no query string: skip building a URLSearchParams for them.
  if (url.search) {
    for (const [name, value] of url.searchParams) {
      queryStringParameters[name] =
        queryStringParameters[name] !== undefined ? `${queryStringParameters[name]},${value}` : value;
    }
  }
  const contentType = headers['content-type'] ?? '';
  // Bytes that are not UTF-8 travel base64-encoded whatever they are labelled (a client sends
  // image bytes as application/json): decoding them as text would lose them.
  const isText = body.length === 0 || ((contentType === '' || TEXT_TYPES.test(contentType)) && isUtf8(body));
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(cookies?.length ? { cookies } : {}),
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

function send(
  response: ServerResponse,
  result: APIGatewayProxyStructuredResultV2 | string | undefined | undefined,
): void {
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
    options.groups.flatMap((group) =>
      group.routes.map((route) => ({
        method: route.method,
        path: routeUrlPath(route),
        // The event's routeKey, built once rather than per request.
        value: { group: group.name, routeKey: `${route.method} ${routeUrlPath(route)}` },
      })),
    ),
  );
  const server = createServer(async (request, response) => {
    // Every answer names its request, the gateway's own too (preflight, 413, a failed integration):
    // one id per request, the event's requestId too (what the handler logs and also sets).
    const requestId = randomUUID();
    response.setHeader('x-request-id', requestId);
    try {
      const body = await readBody(request);
      if (!body) return refuseTooLarge(response);
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
        const { group, routeKey } = match.value;
        const handler = options.handlers.get(group)!;
        const event = toEvent(request, body, routeKey, match.params, url, requestId);
        send(response, await handler(event, lambdaContext(requestId, group)));
        return;
      }
      const event = toEvent(request, body, '$default', undefined, url, requestId);
      send(response, await options.fallback(event, lambdaContext(requestId, 'fallback')));
    } catch (error) {
      // What API Gateway answers when the integration itself fails.
      console.error(error);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: 'Internal Server Error' }));
    }
  });
  // `Expect: 100-continue`: a client announcing too large a body is refused before it sends it.
  server.on('checkContinue', (request, response) => {
    if (declaredTooLarge(request)) return refuseTooLarge(response);
    response.writeContinue();
    server.emit('request', request, response);
  });
  return server;
}
