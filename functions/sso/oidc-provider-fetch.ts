/**
 * How Stepwise talks to an OpenID provider (docs/identity.md): every request openid-client makes
 * (discovery, JWKS, token endpoint) goes through the SSRF-safe request, as its customFetch.
 */
import type { CustomFetch } from 'openid-client';
import { config } from '../../shared/config.ts';
import { FetchRefusedError } from '../../shared/net/safe-fetch.ts';
import { safeRequest } from '../../shared/net/safe-request.ts';

/** The provider's answers are small JSON documents: a megabyte is plenty. */
const MAX_PROVIDER_ANSWER_BYTES = 1024 * 1024;

/**
 * Every request to the provider (discovery, JWKS, token) through the SSRF-safe request: an
 * issuer on an internal address is refused, as a module URL or a webhook would be.
 */
export const providerFetch: CustomFetch = (url, options) =>
  safeRequest(url, {
    method: options.method,
    headers: options.headers,
    body: requestBody(options.body),
    signal: options.signal,
    timeoutMs: 10_000,
    maxBytes: MAX_PROVIDER_ANSWER_BYTES,
    allowHosts: config().STEPWISE_FETCH_ALLOW_HOSTS,
    userAgent: 'Stepwise single sign-on',
  });

function requestBody(body: unknown): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new Error('Unsupported request body for the identity provider');
}

/** The SSRF refusal inside what openid-client threw, if that is why it failed. */
export function fetchRefusal(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; at && typeof at === 'object' && depth < 5; depth++) {
    if (at instanceof FetchRefusedError) return at.message;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}
