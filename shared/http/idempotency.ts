/**
 * `Idempotency-Key` on POST, PUT, PATCH and DELETE (the IETF httpapi draft header; decision 223),
 * through Powertools' idempotency utility with its DynamoDB persistence in our table
 * (shared/db/entities/idempotency-record.ts). The router calls it after authentication and
 * authorization, so a key belongs to its caller and a replay never skips a check:
 * - same key, same request (method, path, query and body bytes) within 24 h: the first answer
 *   again, status and body, with `Idempotent-Replayed: true`; the work is not done twice;
 * - same key, another request: 422; the first one still running: 409;
 * - an answer that failed (thrown error, or a 5xx) is not kept: the key is free again;
 * - an answer too large for one item is not kept, and the key then answers 409;
 * - routes that mint credentials (`mintsCredentials`) refuse the header (422): a kept answer
 *   must never hold a secret; so do anonymous callers, who have no scope to keep a key in.
 */
import { createHash } from 'node:crypto';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyInconsistentStateError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { BadRequestError, ConflictError, ValidationError } from '../domain/errors.ts';
import {
  IDEMPOTENCY_KEY_PREFIX,
  idempotencyStore,
  type storedAnswerSchema,
} from '../db/entities/idempotency-record.ts';
import type * as z from 'zod/mini';
import { ownerKey, type Caller } from '../domain/caller.ts';
import type { RouteDef } from './route.ts';
import { CORS_HEADERS } from './respond.ts';
import { REQUEST_ID_HEADER } from './request-context.ts';

type Result = APIGatewayProxyStructuredResultV2;
type StoredAnswer = z.output<typeof storedAnswerSchema>;

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** How long a key is kept (the draft's suggestion, and the issue's). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/**
 * The largest answer kept: DynamoDB's item is 400 KB, and the item also holds its key, hash
 * and bookkeeping; 380,000 bytes of body leaves them room.
 */
export const MAX_KEPT_ANSWER_BYTES = 380_000;
/** When the Lambda context does not say how long is left: API Gateway's own limit. */
const DEFAULT_IN_FLIGHT_MS = 30_000;

/** A key as the draft sends it (an sf-string, quoted) or bare: 1-255 visible ASCII characters. */
export function parseIdempotencyKey(raw: string): string {
  const trimmed = raw.trim();
  const key = /^".*"$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
  if (!/^[\x21-\x7e]{1,255}$/.test(key) || key.includes('"'))
    throw new BadRequestError(`${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters`);
  return key;
}

export interface IdempotentRequest {
  route: RouteDef;
  event: APIGatewayProxyEventV2;
  headers: Record<string, string>;
  caller: Caller | null;
  context?: Context;
}

/** The answer as it is kept: headers of its own (not CORS or the request id, which are per request). */
function keptAnswer(result: Result): StoredAnswer {
  const body = typeof result.body === 'string' ? result.body : '';
  if (Buffer.byteLength(body) > MAX_KEPT_ANSWER_BYTES)
    return { status: result.statusCode ?? 200, body: '', too_large: true };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower.startsWith('access-control-') || lower === REQUEST_ID_HEADER) continue;
    headers[lower] = String(value);
  }
  return {
    status: result.statusCode ?? 200,
    headers,
    body,
    ...(result.isBase64Encoded ? { base64: true } : {}),
  };
}

function replayed(answer: StoredAnswer): Result {
  if (answer.too_large)
    throw new ConflictError(
      `The answer to this ${IDEMPOTENCY_KEY_HEADER} was too large to keep: it cannot be sent again; ` +
        'read the resource instead',
    );
  return {
    statusCode: answer.status,
    headers: { ...CORS_HEADERS, ...answer.headers, [REPLAYED_HEADER.toLowerCase()]: 'true' },
    body: answer.body,
    ...(answer.base64 ? { isBase64Encoded: true } : {}),
  };
}

/** A server error is answered but not kept: Powertools forgets the key when the work throws. */
class NotKept extends Error {
  constructor(readonly result: Result) {
    super('not kept');
    this.name = 'NotKept';
  }
}

function requestHash(event: APIGatewayProxyEventV2): string {
  const body = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body);
  return createHash('sha256')
    .update(event.requestContext.http.method.toUpperCase())
    .update('\n')
    .update(event.rawPath)
    .update('\n')
    .update(event.rawQueryString ?? '')
    .update('\n')
    .update(bytes)
    .digest('base64');
}

/** Runs `work` once per key: the first time for real, later from the kept answer. */
export async function idempotent(request: IdempotentRequest, work: () => Promise<Result>): Promise<Result> {
  const { route, event, headers, caller, context } = request;
  const raw = headers['idempotency-key'];
  if (raw === undefined || !METHODS.has(route.method)) return work();
  if (route.mintsCredentials)
    throw ValidationError.field(
      IDEMPOTENCY_KEY_HEADER,
      'not_replayable',
      `${IDEMPOTENCY_KEY_HEADER} is refused here: this route makes credentials, and an answer with one is never kept`,
    );
  if (!caller)
    throw ValidationError.field(
      IDEMPOTENCY_KEY_HEADER,
      'needs_caller',
      `${IDEMPOTENCY_KEY_HEADER} needs a signed-in caller: keys are kept per caller`,
    );
  const key = parseIdempotencyKey(raw);

  let fresh: Result | undefined;
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'key',
    payloadValidationJmesPath: 'request',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS,
    hashFunction: 'sha256',
  });
  config.registerLambdaContext(
    context ?? ({ getRemainingTimeInMillis: () => DEFAULT_IN_FLIGHT_MS } as unknown as Context),
  );
  const once = makeIdempotent(
    async (_payload: { key: string; request: string }): Promise<StoredAnswer> => {
      const result = await work();
      if ((result.statusCode ?? 200) >= 500) throw new NotKept(result);
      fresh = result;
      return keptAnswer(result);
    },
    // Each caller's keys apart: a person's by userid, each site API token's by its own id (decision 262).
    { persistenceStore: idempotencyStore(ownerKey(caller)), config, keyPrefix: IDEMPOTENCY_KEY_PREFIX },
  );
  try {
    const answer = await once({ key, request: requestHash(event) });
    return fresh ?? replayed(answer);
  } catch (error) {
    if (error instanceof NotKept) return error.result;
    throw translated(error);
  }
}

/** Powertools' errors as the documented statuses; anything else as it was. */
function translated(error: unknown): unknown {
  if (error instanceof IdempotencyValidationError)
    return ValidationError.field(
      IDEMPOTENCY_KEY_HEADER,
      'key_reused',
      `This ${IDEMPOTENCY_KEY_HEADER} was used for another request (method, path, query or body differ)`,
    );
  if (error instanceof IdempotencyAlreadyInProgressError || error instanceof IdempotencyInconsistentStateError)
    return new ConflictError(`A request with this ${IDEMPOTENCY_KEY_HEADER} is still in progress: retry later`);
  return error;
}
