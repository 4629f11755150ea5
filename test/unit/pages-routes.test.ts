/**
 * The site's pages are not API operations (issue 27, decision 187): every route of
 * functions/pages/content.routes.ts is a site GET, and the OpenAPI document is the same with or
 * without them.
 */
import { expect, it } from 'vitest';
import { contentRoutes } from '../../functions/pages/content.routes.ts';
import { routeGroups } from '../../functions/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';

it('declares every page as a site GET', () => {
  expect(contentRoutes.length).toBeGreaterThan(10);
  for (const route of contentRoutes)
    expect({ path: route.path, site: route.site, method: route.method }).toEqual({
      path: route.path,
      site: true,
      method: 'GET',
    });
});

it('leaves the OpenAPI document unchanged', () => {
  const withoutPages = routeGroups.map((group) =>
    group.name === 'pages'
      ? { ...group, routes: group.routes.filter((route) => !contentRoutes.includes(route)) }
      : group,
  );
  expect(JSON.stringify(buildOpenApiDocument(routeGroups))).toBe(JSON.stringify(buildOpenApiDocument(withoutPages)));
});
