/**
 * Builds API Gateway v2 responses: JSON by default, indented with ?pretty, XML when asked
 * (Accept: application/xml or ?format=xml); CORS headers on every response; domain errors
 * mapped to their documented status and body.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  BadRequestError,
  ConflictError,
  FeatureUnavailableError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../domain/errors.ts';
import { toXml } from './xml.ts';

export type Format = { xml: boolean; pretty: boolean };

/**
 * How long a browser may keep a CORS preflight answer: one value for the local gateway (these
 * headers) and the deployed HTTP API (infra/stacks/api-stack.ts corsPreflight). An hour: few
 * preflights, and a change of allowed headers or methods reaches browsers within the hour
 * (Chromium caps any value at two hours).
 */
export const CORS_MAX_AGE_SECONDS = 3600;

export const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'Authorization, Content-Type, X-App-Id',
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
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
  return { xml, pretty };
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

export function respond(
  status: number,
  body: unknown,
  format: Format,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  const base = { ...CORS_HEADERS, ...headers };
  if (body === undefined || status === 204) {
    return { statusCode: status, headers: base, body: '' };
  }
  if (format.xml) {
    return {
      statusCode: status,
      headers: { ...base, 'content-type': 'application/xml; charset=utf-8' },
      body: toXml(body),
    };
  }
  return {
    statusCode: status,
    headers: { ...base, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body, null, format.pretty ? 2 : undefined),
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
  if (error instanceof ForbiddenError) return { status: 403, body: { message: error.message } };
  if (error instanceof FeatureUnavailableError) return { status: 403, body: { message: error.message } };
  if (error instanceof NotFoundError) return { status: 404, body: { message: error.message } };
  if (error instanceof ConflictError) return { status: 409, body: error.current ?? { message: error.message } };
  if (error instanceof ServiceUnavailableError) return { status: 503, body: { message: error.message } };
  if (error instanceof TooManyRequestsError) {
    return {
      status: 429,
      body: { message: error.message },
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    };
  }
  return { status: 500, body: { message: 'Internal server error' }, unexpected: true };
}
