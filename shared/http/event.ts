/** Reading an API Gateway v2 event: headers, query string, path and body, the same everywhere. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../domain/json-text.ts';
import { ValidationError } from '../domain/errors.ts';
import { RequestError } from './respond.ts';

export function lowerCaseHeaders(headers: APIGatewayProxyEventV2['headers']): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) result[name.toLowerCase()] = value;
  }
  return result;
}

/** Trailing slashes are tolerated: /users/1/ is /users/1. */
export function normalizePath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** Query values as strings; a repeated parameter keeps its last value. */
export function queryObject(query: URLSearchParams): Record<string, string> {
  return Object.fromEntries(query.entries());
}

export function bodyBytes(event: APIGatewayProxyEventV2): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/**
 * The body parsed as JSON whatever the Content-Type says (real clients send none, or a form
 * type with a JSON body). An empty body is undefined; anything unparseable is a 400; nesting
 * deeper than MAX_JSON_DEPTH is a 422 on `body`, decided before parsing.
 */
export function jsonBody(event: APIGatewayProxyEventV2): unknown {
  const text = bodyBytes(event).toString('utf8');
  if (text.trim() === '') return undefined;
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw ValidationError.field(
      'body',
      'too_deep',
      `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestError(400, 'Invalid JSON in request body');
  }
}
