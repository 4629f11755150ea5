/**
 * Every example the OpenAPI document shows is valid for its own route: a client that copies a
 * request example gets past validation. Generic over the route table, so a new route is
 * checked the moment it is declared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/repo-paths.ts';
import { routeGroups } from '../../functions/routes.ts';
import { buildOpenApiDocument, responseExampleOf } from '../../shared/http/openapi.ts';
import { parameterExample } from '../../shared/http/parameter-examples.ts';

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

const pathNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);

describe('every operation shows a request example (decision 177)', () => {
  it.each(named(routes.filter((route) => pathNames(route.path).length > 0)))(
    'path parameters of $name',
    ({ route }) => {
      const example = Object.fromEntries(
        pathNames(route.path).map((name) => [name, parameterExample(name, route.params)]),
      );
      expect(
        Object.entries(example).filter(([, value]) => value === undefined),
        'no candidate in shared/http/parameter-examples.ts',
      ).toEqual([]);
      if (route.params) expect(issues(route.params.safeParse(example))).toEqual([]);
    },
  );

  it.each(named(routes.filter((route) => route.query && route.queryExample === undefined)))(
    'query parameters of $name (from the table)',
    ({ route }) => {
      const document = buildOpenApiDocument([{ name: 'one', access: { table: 'none' }, routes: [route] }]) as any;
      const operation = document.paths[route.path][route.method.toLowerCase()];
      const example = Object.fromEntries(
        operation.parameters
          .filter((parameter: { in: string; example?: string }) => parameter.in === 'query' && parameter.example)
          .map((parameter: { name: string; example: string }) => [parameter.name, parameter.example]),
      );
      expect(issues(route.query!.safeParse(example))).toEqual([]);
    },
  );
});

const answering = routeGroups.flatMap((group) =>
  group.routes
    .filter((route) => route.response && route.status !== 204)
    .map((route) => ({ name: `${route.method} ${route.path}`, route, example: responseExampleOf(group, route) })),
);

describe('response examples (decision 177)', () => {
  it.each(answering)('$name has one, valid for its response schema', ({ route, example }) => {
    expect(example, 'a responseExample, or an entry in <group>.response-examples.json').toBeDefined();
    expect(issues(route.response!.safeParse(example))).toEqual([]);
  });

  it('every entry of a group examples file names one of its routes', () => {
    for (const group of routeGroups) {
      const names = new Set(group.routes.map((route) => `${route.method} ${route.path}`));
      const stray = Object.keys(group.responseExamples ?? {}).filter((name) => !names.has(name));
      expect(stray, group.name).toEqual([]);
    }
  });

  it('no group file imports its examples: the route index attaches them, no bundle (decision 355)', () => {
    const functionsDir = join(REPO_ROOT, 'functions');
    const importers = readdirSync(functionsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) =>
        readdirSync(join(functionsDir, entry.name))
          .filter((file) => file.endsWith('.ts'))
          .map((file) => `${entry.name}/${file}`),
      )
      .filter((file) => readFileSync(join(functionsDir, file), 'utf8').includes('.response-examples.json'));
    expect(importers).toEqual([]);
  });

  it('only routes that answer a body have one', () => {
    const silent = routes.filter((route) => route.responseExample !== undefined && !route.response);
    expect(silent.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });
});
