/**
 * The route table as the deployment sees it. `routeManifest` (which group serves which method
 * and path) is compiled into the fallback function, so it can answer 405 and forward
 * trailing-slash paths without loading every group's code. It is defined once, next to the
 * code that reads it back (shared/http/embedded.ts), and re-exported here for the infra.
 */
import { routeManifest } from '../../shared/http/embedded.ts';
import { API_BASE_PATH, type RouteGroup, routeUrlPath } from '../../shared/http/route.ts';

export { type ManifestEntry, routeManifest } from '../../shared/http/embedded.ts';

/** The name of the function behind the `$default` route; no group may take it. */
export const FALLBACK_FUNCTION_NAME = 'fallback';

const GROUP_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const ROUTE_PATH = /^(\/[A-Za-z0-9._~-]+|\/\{[A-Za-z][A-Za-z0-9_]*\+?\})*$/;

/**
 * Problems that would otherwise surface only at deploy time (API Gateway rejects a duplicate
 * route key) or as a wrong construct id. Returns one message per problem; empty when deployable.
 */
export function routeTableProblems(groups: RouteGroup[]): string[] {
  const problems: string[] = [];
  const groupNames = new Set<string>();
  for (const group of groups) {
    if (!GROUP_NAME.test(group.name)) problems.push(`group "${group.name}": name must match ${GROUP_NAME}`);
    if (group.name === FALLBACK_FUNCTION_NAME)
      problems.push(`group "${group.name}": the name is reserved for the $default route`);
    if (groupNames.has(group.name)) problems.push(`group "${group.name}" is declared twice`);
    groupNames.add(group.name);
  }
  const owners = new Map<string, string>();
  for (const entry of routeManifest(groups)) {
    const { group, method, path } = entry;
    // The site root `/` is an API Gateway route key too (the site's home page); only a site route has it.
    const siteRoot = entry.site === true && path === '/';
    if (!siteRoot && !ROUTE_PATH.test(path)) problems.push(`${group}: ${method} ${path}: not an API Gateway path`);
    if (entry.site && `${path}/`.startsWith(`${API_BASE_PATH}/`))
      problems.push(`${group}: ${method} ${path}: a site path may not lie under ${API_BASE_PATH}`);
    const key = `${method} ${routeUrlPath(entry)}`;
    const owner = owners.get(key);
    if (owner !== undefined) problems.push(`${method} ${path} is declared by both "${owner}" and "${group}"`);
    owners.set(key, group);
  }
  return problems;
}

export function assertDeployableRouteTable(groups: RouteGroup[]): void {
  const problems = routeTableProblems(groups);
  if (problems.length > 0) throw new Error(`The route table cannot be deployed:\n  ${problems.join('\n  ')}`);
}
