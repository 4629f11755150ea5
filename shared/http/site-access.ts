/**
 * Who may call a route without a token. On a private site (STEPWISE_PRIVATE_SITE, the default)
 * only routes declared `openOnPrivateSite` serve anonymous callers; on a public site every
 * `public` and `custom` route does (published public guides are readable anonymously). The
 * router, the OpenAPI document and the test matrix all read this one rule.
 */
import type { RouteDef } from './route.ts';

/** True when an anonymous request may reach the route's own checks on this kind of site. */
export function openToAnonymous(route: Pick<RouteDef, 'auth' | 'openOnPrivateSite'>, privateSite: boolean): boolean {
  if (privateSite) return route.openOnPrivateSite === true;
  return route.auth === 'public' || route.auth === 'custom';
}
