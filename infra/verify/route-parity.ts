/**
 * Route parity: the (route key -> function) pairs of the synthesized HTTP API against the
 * route table. Each table entry must be a route on its group's function, `$default` must be
 * on the fallback, and there must be no other route: API Gateway sends whatever no route
 * matches to `$default`, so that is what makes "everything else reaches the fallback" hold.
 */
import { routeManifest } from '../../shared/http/embedded.ts';
import { type RouteGroup, routeUrlPath } from '../../shared/http/route.ts';

export const groupFunctionDescription = (group: string) => `Stepwise ${group} endpoints`;
export const FALLBACK_FUNCTION_DESCRIPTION = 'Stepwise fallback router ($default route)';

/** `routes`: route key -> description of the function its integration invokes. */
export function routeParityProblems(routes: Map<string, string>, groups: RouteGroup[]): string[] {
  const problems: string[] = [];
  const expected = new Map<string, string>([['$default', FALLBACK_FUNCTION_DESCRIPTION]]);
  for (const entry of routeManifest(groups))
    expected.set(`${entry.method} ${routeUrlPath(entry)}`, groupFunctionDescription(entry.group));
  for (const [routeKey, target] of expected) {
    const actual = routes.get(routeKey);
    if (actual === undefined) problems.push(`${routeKey}: in the route table, not in the HTTP API`);
    else if (actual !== target) problems.push(`${routeKey}: invokes "${actual}", the route table says "${target}"`);
  }
  for (const [routeKey, target] of routes) {
    if (!expected.has(routeKey)) problems.push(`${routeKey}: in the HTTP API (on "${target}"), not in the route table`);
  }
  return problems;
}
