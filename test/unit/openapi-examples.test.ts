/**
 * Every example the OpenAPI document shows is valid for its own route: a client that copies a
 * request example gets past validation. Generic over the route table, so a new route is
 * checked the moment it is declared.
 */
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';

const routes = routeGroups.flatMap((group) => group.routes);
const issues = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  result.success
    ? []
    : result.error!.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);

const named = (list: typeof routes) => list.map((route) => ({ name: `${route.method} ${route.path}`, route }));

describe("request examples pass their own route's schemas", () => {
  it.each(named(routes.filter((route) => route.body && route.example !== undefined)))('body of $name', ({ route }) => {
    expect(issues(route.body!.safeParse(route.example))).toEqual([]);
  });

  it.each(named(routes.filter((route) => route.queryExample !== undefined)))('query of $name', ({ route }) => {
    expect(route.query, 'a query example needs a query schema').toBeDefined();
    expect(issues(route.query!.safeParse(route.queryExample))).toEqual([]);
  });

  it.each(named(routes.filter((route) => route.query && !route.query.safeParse({}).success)))(
    '$name has a query example (its query has required parameters)',
    ({ route }) => {
      expect(route.queryExample).toBeDefined();
    },
  );
});

it('every route with a JSON body has a body example', () => {
  const missing = routes
    .filter((route) => route.body && !route.rawBody && route.example === undefined)
    .map((route) => `${route.method} ${route.path}`);
  expect(missing).toEqual([]);
});

it('the document carries the examples: POST /quizzes/attach/guide shows the revisionid it requires', () => {
  const document = buildOpenApiDocument(routeGroups) as any;
  const attach = document.paths['/quizzes/attach/guide'].post;
  const revisionid = attach.parameters.find((parameter: { name: string }) => parameter.name === 'revisionid');
  expect(revisionid).toMatchObject({ in: 'query', required: true, example: '78' });
  expect(attach.requestBody.content['application/json'].example).toEqual({ quizid: 12, guideid: 34 });
});
