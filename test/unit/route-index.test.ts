import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { currentRouteIndex, ROUTE_INDEX_FILE, routeDeclarations } from '../../infra/checks/route-index.ts';
import { type RouteGroup, route } from '../../shared/http/route.ts';
import { renderRouteIndex } from '../../infra/checks/route-index.ts';

const handler = async () => ({});

describe('route index (docs/routes.md)', () => {
  it('is current: run `npm run routes:index` after adding or moving a route', () => {
    expect(readFileSync(ROUTE_INDEX_FILE, 'utf8')).toBe(currentRouteIndex());
  });

  it('finds plain, aliased and template-literal declarations, and refuses a route it cannot place', () => {
    const source = [
      'route({',
      "  method: 'GET',",
      "  path: '/things/{thingid}',",
      '}),',
      'route({',
      "  method: 'PUT',",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal path
      '  path: `/wikis/${namespace}/{title}/parent`,',
      '}),',
    ].join('\n');
    const declarations = routeDeclarations(['functions/things/things.routes.ts'], () => source).map((site) => ({
      ...site,
      file: 'functions/things/things.routes.ts',
    }));
    const group = (paths: Array<['GET' | 'PUT', string]>): RouteGroup => ({
      name: 'things',
      access: { table: 'none' },
      routes: paths.map(([method, path]) => route({ method, path, auth: 'user', summary: 's', handler })),
    });
    const index = renderRouteIndex(
      [
        group([
          ['GET', '/things/{thingid}'],
          ['GET', '/courses/things/{thingid}'],
          ['PUT', '/wikis/CATEGORY/{title}/parent'],
        ]),
      ],
      declarations,
    );
    expect(index).toContain('| GET | `/things/{thingid}` | things | user | s | [functions/things/things.routes.ts:2]');
    expect(index).toContain(
      '| GET | `/courses/things/{thingid}` | things | user | s | [functions/things/things.routes.ts:2]',
    );
    expect(index).toContain(
      '| PUT | `/wikis/CATEGORY/{title}/parent` | things | user | s | [functions/things/things.routes.ts:6]',
    );
    expect(() => renderRouteIndex([group([['GET', '/elsewhere']])], declarations)).toThrow(/found 0 declarations/);
  });
});
