/**
 * The router's input boundary on hand-built events (HTTP bytes cannot carry a lone surrogate in
 * a path or query; an event can): lone surrogates in path parameters, query values and bodies
 * are a 422 on the field before the handler runs; deep bodies are a 422; long segments a 404.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createRouter } from '../../shared/http/router.ts';
import { route } from '../../shared/http/route.ts';
import { errorResponse } from '../../shared/http/respond.ts';

let handled = 0;
const dispatch = createRouter([
  route({
    method: 'POST',
    path: '/echo/{name}',
    auth: 'public',
    // Served anonymously on a private site too: this test is about input, not access.
    openOnPrivateSite: true,
    summary: 'Echo for the boundary test',
    params: z.object({ name: z.string() }),
    query: z.object({ q: z.optional(z.string()) }),
    body: z.object({ text: z.optional(z.string()), nested: z.optional(z.unknown()) }),
    handler: async ({ params, query, body }) => {
      handled++;
      return { params, query, body };
    },
  }),
]);

function event(rawPath: string, rawQueryString = '', body?: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: {},
    body,
    isBase64Encoded: false,
    requestContext: {
      http: { method: 'POST', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r',
    },
  } as unknown as APIGatewayProxyEventV2;
}

/** The status and body the router answers, thrown errors mapped as the Lambda maps them. */
async function call(request: APIGatewayProxyEventV2): Promise<{ status: number; body: any }> {
  try {
    const result = await dispatch(request);
    return { status: result.statusCode ?? 200, body: result.body ? JSON.parse(result.body) : undefined };
  } catch (error) {
    const mapped = errorResponse(error);
    return { status: mapped.status, body: mapped.body };
  }
}

describe('router input boundary', () => {
  it('serves well-formed input', async () => {
    const response = await call(event('/api/2.0/echo/ok', 'q=%C3%A9', '{"text":"😀"}'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ params: { name: 'ok' }, query: { q: 'é' }, body: { text: '😀' } });
  });

  it('refuses a lone surrogate in a path parameter, a query value or the body with 422 on that field', async () => {
    const before = handled;
    const inPath = await call(event('/api/2.0/echo/x\ud800', '', '{}'));
    expect(inPath.status).toBe(422);
    expect(inPath.body.errors).toEqual([expect.objectContaining({ field: 'name', code: 'invalid_unicode' })]);
    const inBody = await call(event('/api/2.0/echo/ok', '', '{"nested":{"list":["fine","\\udfff"]}}'));
    expect(inBody.status).toBe(422);
    expect(inBody.body.errors).toEqual([expect.objectContaining({ field: 'nested.list.1', code: 'invalid_unicode' })]);
    expect(handled).toBe(before);
  });

  it('reads invalid percent-encoded or raw bytes as U+FFFD, not as a lone surrogate', async () => {
    const response = await call(event('/api/2.0/echo/ok', 'q=%ED%A0%80'));
    expect(response.status).toBe(200);
    expect(response.body.query.q).not.toContain('\ud800');
  });

  it('refuses a body nested deeper than 64 with 422 too_deep, and a path segment over 1024 characters with 404', async () => {
    const deep = await call(event('/api/2.0/echo/ok', '', `{"nested":${'['.repeat(10_000)}${']'.repeat(10_000)}}`));
    expect(deep.status).toBe(422);
    expect(deep.body.errors).toEqual([expect.objectContaining({ field: 'body', code: 'too_deep' })]);
    expect((await call(event(`/api/2.0/echo/${'a'.repeat(1025)}`, '', '{}'))).status).toBe(404);
  });
});
