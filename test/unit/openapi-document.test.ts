import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { routeGroups } from '../../functions/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';

describe('the OpenAPI document built from the route table', () => {
  const document = buildOpenApiDocument(routeGroups) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('has one operation per API route, with unique operation ids, and no site path', () => {
    const routes = routeGroups.flatMap((group) => group.routes.filter((route) => !route.site));
    const sitePaths = routeGroups.flatMap((group) => group.routes.filter((route) => route.site));
    expect(sitePaths.length).toBeGreaterThan(0);
    for (const route of sitePaths) expect(document.paths[route.path], route.path).toBeUndefined();
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(operations).toHaveLength(routes.length);
    for (const route of routes)
      expect(document.paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('its security scheme makes generated requests send `Authorization: api <token>`', () => {
    const scheme = (document as any).components.securitySchemes.apiToken;
    expect(scheme).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    // Scalar puts this value, as is, into the header of its curl and "try it" requests.
    expect(scheme['x-scalar-secret-token']).toMatch(/^api [A-Z_]+$/);
    expect(scheme.description).toContain('`api <token>`');
  });
});

describe('request examples', () => {
  const routes = routeGroups.flatMap((group) => group.routes);
  const strings = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : value && typeof value === 'object'
        ? Object.values(value).flatMap(strings)
        : [];

  it('write wiki syntax, never Markdown bold (shown literally by the site)', () => {
    const markdown = routes.filter((route) => strings(route.example).some((text) => /\*\*\S[^*]*\*\*/.test(text)));
    expect(markdown.map((route) => `${route.method} ${route.path}`)).toEqual([]);
    const createWiki = routes.find((route) => route.method === 'POST' && route.path === '/wikis');
    expect((createWiki?.example as { contents?: string } | undefined)?.contents).toContain("'''calibrated'''");
  });
});

describe('revisionid (decision 178)', () => {
  const routes = routeGroups.flatMap((group) => group.routes);
  const document = buildOpenApiDocument(routeGroups) as any;
  const takesRevision = routes.filter((route) => route.query && 'revisionid' in ((route.query as any).shape ?? {}));

  it('every route whose query takes a revisionid says whether the service requires it', () => {
    expect(takesRevision.length).toBeGreaterThan(15);
    const undecided = takesRevision.filter((route) => route.revision === undefined);
    expect(undecided.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it('the document marks it required exactly where the route says so', () => {
    for (const route of takesRevision) {
      const parameter = document.paths[route.path][route.method.toLowerCase()].parameters.find(
        (p: { name: string; in: string }) => p.name === 'revisionid' && p.in === 'query',
      );
      expect(parameter.required, `${route.method} ${route.path}`).toBe(route.revision === 'required');
    }
  });
});
