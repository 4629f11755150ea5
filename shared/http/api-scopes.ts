/**
 * What a site API token may reach (decision 227), decided in the router after authentication and
 * before anything is validated:
 * - a route that names an `apiScope` (SCIM, the external-courses routes) takes only a token
 *   holding that scope; a user's token is refused there;
 * - every other route takes a token with `full`, or with `read-only` for GET and HEAD; a token
 *   with neither (a SCIM connector's) reaches nothing else;
 * - a `personOnly` route (work done and training taken: work-log entries, step data, the
 *   journal, quiz sessions) takes no token at all: a token is not an operator nor a trainee
 *   (decision 250).
 */
import { ForbiddenError } from '../domain/errors.ts';
import type { ApiScope, Caller } from '../domain/caller.ts';

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The 403 of a token on a route only a person may call. */
export const NOT_A_PERSON =
  'A site API token is not a person: it cannot do work, take training or sign. Sign in as the person who does';

export function checkApiScope(
  route: { apiScope?: ApiScope; personOnly?: boolean },
  method: string,
  caller: Caller | null,
): void {
  const service = caller?.service;
  if (route.personOnly && service) throw new ForbiddenError(NOT_A_PERSON);
  if (route.apiScope) {
    if (!service?.scopes.includes(route.apiScope))
      throw new ForbiddenError(`This requires a site API token with the ${route.apiScope} scope`);
    return;
  }
  if (!service) return;
  if (service.scopes.includes('full')) return;
  if (service.scopes.includes('read-only')) {
    if (READ_METHODS.has(method)) return;
    throw new ForbiddenError('This API token is read-only: GET and HEAD only');
  }
  throw new ForbiddenError('This API token has no scope for this route');
}
