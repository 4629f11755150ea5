/**
 * Builds API Gateway v2 responses: JSON by default, indented with ?pretty, XML when asked
 * (Accept: application/xml or ?format=xml); CORS headers on every response; domain errors
 * mapped to their documented status and body.
 */
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  BadRequestError,
  ConflictError,
  StaleRevisionError,
  FeatureUnavailableError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  PreconditionFailedError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../domain/errors.ts';
import { toXml } from './xml.ts';
import { StoredItemError } from '../db/stored-item.ts';

export type Format = { xml: boolean; pretty: boolean; gzip?: boolean };

/**
 * Answers at least this long go gzip to a client that accepts it (decision 194). Below it the
 * saving is a few hundred bytes and not worth a deflate; above it JSON shrinks 5 to 15 times.
 */
export const GZIP_MIN_BYTES = 1024;

/**
 * Lambda's synchronous answer stops at 6 MB (6,291,456 bytes with its headers); past it API
 * Gateway answers a bare 500. The router answers the same status first, saying what to do, so
 * the local stack behaves as AWS does.
 */
export const MAX_ANSWER_BODY_BYTES = 6_000_000;

/** Whether Accept-Encoding allows gzip: `gzip` or `*`, unless given `q=0`. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') return false;
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    return q === undefined || Number(q) > 0;
  });
}

/**
 * How long a browser may keep a CORS preflight answer: one value for the local gateway (these
 * headers) and the deployed HTTP API (infra/cdk/stacks/api-stack.ts corsPreflight). An hour: few
 * preflights, and a change of allowed headers or methods reaches browsers within the hour
 * (Chromium caps any value at two hours).
 */
export const CORS_MAX_AGE_SECONDS = 3600;

/**
 * The request headers a browser may send across origins, and the answer headers it may read: one
 * list for these headers and the deployed HTTP API's corsPreflight (infra/cdk/stacks/api-stack.ts).
 * Idempotency-Key: decision 223 (shared/http/idempotency.ts); the xAPI headers: docs/lrs.md.
 */
export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-App-Id',
  'Idempotency-Key',
  // xAPI (docs/lrs.md): a cmi5 AU on the content origin or any web client of the LRS sends these.
  'X-Experience-API-Version',
  'If-Match',
  'If-None-Match',
];
/**
 * The id of its request (decision 183), whether an answer replays an Idempotency-Key (decision 223),
 * what a 409 on a stale ?revisionid= names as current, and the body fields a write ignored (decision 315).
 */
export const CORS_EXPOSE_HEADERS = [
  'X-Request-Id',
  'Idempotent-Replayed',
  'X-Stepwise-Current-Revisionid',
  'X-Stepwise-Ignored-Fields',
  'X-Experience-API-Version',
  'X-Experience-API-Consistent-Through',
  'ETag',
  'Last-Modified',
];

export const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': CORS_ALLOW_HEADERS.join(', '),
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
  'access-control-expose-headers': CORS_EXPOSE_HEADERS.join(', '),
};

/** Reads ?format / ?pretty / Accept (a flag counts when present without a value). */
export function negotiateFormat(query: URLSearchParams, headers: Record<string, string>): Format {
  const format = query.get('format')?.toLowerCase();
  const accept = headers.accept ?? '';
  const xml =
    format === 'xml' ||
    (format !== 'json' && /application\/xml|text\/xml/.test(accept) && !/application\/json/.test(accept));
  const prettyValue = query.get('pretty');
  const pretty = prettyValue !== null && !['0', 'false'].includes(prettyValue.toLowerCase());
  return { xml, pretty, gzip: acceptsGzip(headers['accept-encoding']) };
}

/** Error text for an unknown route (the real service's wording). */
export const ENDPOINT_NOT_FOUND = 'Endpoint not found';

export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

/** Names under which an answer hands out a secret a cache must never keep (issue 35 item 9). */
const TOKEN_FIELDS: ReadonlySet<string> = new Set([
  'authToken',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'secret',
]);

/** Whether an answer's body (or an element of a list answer) holds a token at its top level. */
export function carriesToken(body: unknown): boolean {
  const holds = (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    Object.entries(value).some(([name, field]) => TOKEN_FIELDS.has(name) && typeof field === 'string' && field !== '');
  return Array.isArray(body) ? body.some(holds) : holds(body);
}

/** What an answer carrying a token says to caches: keep nothing, anywhere. */
export const TOKEN_CACHE_CONTROL = 'private, no-store';

export function respond(
  status: number,
  body: unknown,
  format: Format,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  const base = {
    ...CORS_HEADERS,
    ...headers,
    ...(carriesToken(body) ? { 'cache-control': TOKEN_CACHE_CONTROL } : {}),
  };
  if (body === undefined || status === 204) {
    return { statusCode: status, headers: base, body: '' };
  }
  const contentType = format.xml ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8';
  const text = format.xml ? toXml(body) : JSON.stringify(body, null, format.pretty ? 2 : undefined);
  return encoded(status, { ...base, 'content-type': contentType }, text, format.gzip === true);
}

/**
 * The answer as text, or gzip (base64 to API Gateway, which sends the bytes) when the client
 * accepts it and the text is long enough. Lambda's synchronous answer stops at 6 MB; a whole
 * list of 10,000 guide summaries is about 10 MB of JSON and well under 1 MB gzip (decision 194).
 */
function encoded(
  status: number,
  headers: Record<string, string>,
  text: string,
  gzip: boolean,
): APIGatewayProxyStructuredResultV2 {
  const vary = { vary: headers.vary ? `${headers.vary}, accept-encoding` : 'accept-encoding' };
  const packed = gzip && text.length >= GZIP_MIN_BYTES ? gzipSync(text).toString('base64') : undefined;
  const size = packed?.length ?? Buffer.byteLength(text);
  if (size > MAX_ANSWER_BODY_BYTES) {
    const message =
      `The answer is ${(size / 1e6).toFixed(1)} MB${packed ? ' gzip' : ''}, more than one response carries ` +
      `(6 MB): ask for fewer items with limit and offset${packed ? '' : ', or accept gzip'}`;
    const json = { ...CORS_HEADERS, 'content-type': 'application/json; charset=utf-8' };
    return { statusCode: 500, headers: json, body: JSON.stringify({ message }) };
  }
  if (!packed) return { statusCode: status, headers: { ...headers, ...vary }, body: text };
  return {
    statusCode: status,
    headers: { ...headers, ...vary, 'content-encoding': 'gzip' },
    body: packed,
    isBase64Encoded: true,
  };
}

/** Maps a thrown error to status, body and headers; unknown errors are a 500 without details. */
export function errorResponse(error: unknown): {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  unexpected?: boolean;
} {
  if (error instanceof RequestError)
    return { status: error.status, body: { message: error.message }, headers: error.headers };
  if (error instanceof BadRequestError) return { status: 400, body: { message: error.message } };
  if (error instanceof UnsupportedMediaTypeError) return { status: 415, body: { message: error.message } };
  if (error instanceof ValidationError) return { status: 422, body: { message: error.message, errors: error.errors } };
  if (error instanceof UnauthenticatedError) return { status: 401, body: { message: error.message } };
  if (error instanceof ForbiddenError) return { status: 403, body: { message: error.message, ...error.details } };
  if (error instanceof FeatureUnavailableError) return { status: 403, body: { message: error.message } };
  if (error instanceof NotFoundError) return { status: 404, body: { message: error.message } };
  if (error instanceof StaleRevisionError) {
    const headers = { 'x-stepwise-current-revisionid': String(error.currentRevisionid) };
    return { status: 409, body: error.current ?? { message: error.message }, headers };
  }
  if (error instanceof ConflictError) return { status: 409, body: error.current ?? { message: error.message } };
  if (error instanceof ServiceUnavailableError) return { status: 503, body: { message: error.message } };
  if (error instanceof PreconditionFailedError) return { status: 412, body: { message: error.message } };
  if (error instanceof PayloadTooLargeError) return { status: 413, body: { message: error.message } };
  if (error instanceof TooManyRequestsError) {
    return {
      status: 429,
      body: { message: error.message },
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof StoredItemError)
    return { status: 500, body: { message: 'A stored record does not match its declaration' }, unexpected: true };
  return { status: 500, body: { message: 'Internal server error' }, unexpected: true };
}
