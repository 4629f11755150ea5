/**
 * One request's identity, on every answer and every log line (decision 183):
 * - `X-Request-Id` on every answer: API Gateway's request id (the one its access log records;
 *   locally the gateway makes one), so a client can quote it and an operator can find the
 *   request's trail (docs/operations.md, "One request's trail");
 * - the logger's keys for the request: requestId, route, the caller's userid once authenticated,
 *   and (Powertools' injectLambdaContext) the Lambda request id and cold start. They are the
 *   logger's temporary keys, reset after each request: no request-scoped store (decision 159).
 *   Lambda runs one request at a time per container; the local stack serves concurrent
 *   requests through one logger, so there a line may carry a neighbour's keys (or none), except the lines
 *   that name their requestId themselves (the 5xx line and the unhandled error).
 */
import type middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { log } from '../observability/logger.ts';

export const REQUEST_ID_HEADER = 'x-request-id';

type Result = APIGatewayProxyStructuredResultV2;

export function requestIdOf(event: APIGatewayProxyEventV2): string {
  return event.requestContext?.requestId ?? '';
}

/** `response` with the request's id in `X-Request-Id` (the answer itself is not copied when it has one). */
export function withRequestId(response: Result, event: APIGatewayProxyEventV2): Result {
  const requestId = requestIdOf(event);
  if (!requestId) return response;
  response.headers = { ...response.headers, [REQUEST_ID_HEADER]: requestId };
  return response;
}

/** The caller, once authentication has named one: on every later log line of the request. */
export function logCaller(userid: number): void {
  log().appendKeys({ userid });
}

/** Middy middleware (outermost): the logger's request keys, and X-Request-Id on the answer. */
export function requestContext(): middy.MiddlewareObj<APIGatewayProxyEventV2, Result> {
  const lambdaContext = injectLambdaContext(log(), { resetKeys: true });
  const addHeader = async (request: middy.Request<APIGatewayProxyEventV2, Result>) => {
    if (request.response) withRequestId(request.response, request.event);
  };
  return {
    before: async (request) => {
      await lambdaContext.before?.(request as never);
      log().appendKeys({ requestId: requestIdOf(request.event), route: request.event.routeKey });
    },
    after: async (request) => {
      await addHeader(request);
      await lambdaContext.after?.(request as never);
    },
    onError: async (request) => {
      await addHeader(request);
      await lambdaContext.onError?.(request as never);
    },
  };
}
