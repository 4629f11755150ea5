import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { routeManifest, routeTableProblems } from '../../infra/route-manifest.ts';
import type { RouteGroup } from '../../shared/http/route.ts';
import { FIXTURE_GROUPS } from './support.ts';

const group = (name: string, ...routes: Array<[RouteGroup['routes'][number]['method'], string]>): RouteGroup => ({
  name,
  access: { table: 'none' },
  routes: routes.map(([method, path]) => ({ method, path, auth: 'public', summary: '', handler: async () => ({}) })),
});

describe('routeManifest', () => {
  it('lists every route with its group, method and path, in table order', () => {
    const manifest = routeManifest(FIXTURE_GROUPS);
    expect(manifest).toHaveLength(FIXTURE_GROUPS.flatMap((g) => g.routes).length);
    expect(manifest.slice(0, 2)).toEqual([
      { group: 'things', method: 'GET', path: '/things' },
      { group: 'things', method: 'POST', path: '/things' },
    ]);
    expect(manifest).toContainEqual({ group: 'status', method: 'GET', path: '/status' });
  });

  it('is plain data: JSON round-trips unchanged', () => {
    const manifest = routeManifest(routeGroups);
    expect(JSON.parse(JSON.stringify(manifest))).toEqual(manifest);
    expect(manifest).toHaveLength(routeGroups.flatMap((g) => g.routes).length);
  });
});

describe('routeTableProblems', () => {
  it('finds none in the real route table or the fixture', () => {
    expect(routeTableProblems(routeGroups)).toEqual([]);
    expect(routeTableProblems(FIXTURE_GROUPS)).toEqual([]);
  });

  it('reports a method and path declared by two groups', () => {
    const problems = routeTableProblems([
      group('a', ['GET', '/x/{id}']),
      group('b', ['GET', '/x/{id}'], ['POST', '/x/{id}']),
    ]);
    expect(problems).toEqual(['GET /x/{id} is declared by both "a" and "b"']);
  });

  it('reports duplicate, reserved and malformed group names', () => {
    expect(routeTableProblems([group('a'), group('a')])).toEqual(['group "a" is declared twice']);
    expect(routeTableProblems([group('fallback')])).toHaveLength(1);
    expect(routeTableProblems([group('Bad_Name')])).toHaveLength(1);
    expect(routeTableProblems([group('a--b')])).toHaveLength(1);
  });

  it('keeps site paths apart from API paths, and out of /api/2.0', () => {
    const sitePath = (name: string, path: string): RouteGroup => {
      const one = group(name, ['GET', path]);
      return { ...one, routes: one.routes.map((route) => ({ ...route, site: true })) };
    };
    expect(routeTableProblems([group('a', ['GET', '/robots.txt']), sitePath('b', '/robots.txt')])).toEqual([]);
    expect(routeTableProblems([sitePath('a', '/x'), sitePath('b', '/x')])).toEqual([
      'GET /x is declared by both "a" and "b"',
    ]);
    expect(routeTableProblems([sitePath('a', '/api/2.0/guides')])).toEqual([
      'a: GET /api/2.0/guides: a site path may not lie under /api/2.0',
    ]);
    expect(routeManifest([sitePath('a', '/x')])).toEqual([{ group: 'a', method: 'GET', path: '/x', site: true }]);
  });

  it('reports paths API Gateway would reject', () => {
    expect(
      routeTableProblems([group('a', ['GET', 'users'], ['GET', '/users/{id'], ['GET', '/users//x'])]),
    ).toHaveLength(3);
    expect(routeTableProblems([group('a', ['GET', '/files/{path+}'], ['GET', '/v1.2/x-y_z'])])).toEqual([]);
  });
});
