/**
 * The OpenAPI 3.1 document, built from the route table: one operation per route, with the
 * zod schemas of params, query, body and response turned into JSON Schema.
 */
import * as z from 'zod/mini';
import { API_BASE_PATH, type RouteDef, type RouteGroup } from './route.ts';
import { openToAnonymous } from './site-access.ts';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  const { $schema, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const ERROR_RESPONSES: Record<string, { description: string }> = {
  '400': { description: 'Invalid JSON in the request body' },
  '401': { description: 'Authentication required, or an invalid token: {"message"}' },
  '403': { description: 'The caller may not do this: {"message"}' },
  '404': { description: 'Unknown resource or route: {"message"}' },
  '405': { description: 'Method not allowed on this path' },
  '409': { description: 'Stale revisionid: the body is the current resource' },
  '422': { description: 'Invalid input: {"message", "errors": [{"field", "code", "message"}]}' },
};

function parameters(route: RouteDef): JsonSchema[] {
  const result: JsonSchema[] = [];
  const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const pathSchema = route.params ? jsonSchema(route.params, 'input') : undefined;
  for (const name of pathNames) {
    const property = (pathSchema?.properties as Record<string, JsonSchema> | undefined)?.[name];
    result.push({ name, in: 'path', required: true, schema: property ?? { type: 'string' } });
  }
  if (route.query) {
    const querySchema = jsonSchema(route.query, 'input');
    const required = new Set((querySchema.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((querySchema.properties as Record<string, JsonSchema>) ?? {})) {
      const example = route.queryExample?.[name];
      result.push({
        name,
        in: 'query',
        required: required.has(name),
        schema,
        ...(example !== undefined ? { example } : {}),
      });
    }
  }
  return result;
}

/**
 * A token is optional (`{}` listed) where an anonymous caller may reach the route: always for
 * routes open on a private site, only on a public site (STEPWISE_PRIVATE_SITE=false) for the
 * other public and custom routes. None at all for the public routes open everywhere.
 */
function security(route: RouteDef): Array<Record<string, string[]>> {
  if (route.auth === 'public' && openToAnonymous(route, true)) return [];
  if (openToAnonymous(route, false) || openToAnonymous(route, true)) return [{ apiToken: [] }, {}];
  return [{ apiToken: [] }];
}

function operation(group: RouteGroup, route: RouteDef): JsonSchema {
  const status = String(route.status ?? 200);
  const responses: Record<string, unknown> = {
    [status]: {
      description: status === '204' ? 'No content' : 'Success',
      ...(route.response && status !== '204'
        ? { content: { 'application/json': { schema: jsonSchema(route.response, 'output') } } }
        : {}),
    },
  };
  for (const [code, response] of Object.entries(ERROR_RESPONSES)) {
    if (code === '401' && route.auth === 'public' && route.openOnPrivateSite) continue;
    if (code === '403' && (route.auth === 'public' || route.auth === 'user')) continue;
    if ((code === '400' || code === '422') && !route.body && !route.query) continue;
    responses[code] = response;
  }
  return {
    operationId: `${group.name}_${route.method.toLowerCase()}_${route.path
      .replace(/[{}]/g, '')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')}`,
    tags: route.tags ?? [group.name],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.deprecated ? { deprecated: true } : {}),
    'x-auth': route.auth,
    'x-open-on-private-site': openToAnonymous(route, true),
    ...(route.extensions ?? {}),
    security: security(route),
    parameters: parameters(route),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: jsonSchema(route.body, 'input'),
                ...(route.example !== undefined ? { example: route.example } : {}),
              },
            },
          },
        }
      : route.rawBody
        ? {
            requestBody: {
              required: true,
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
          }
        : {}),
    responses,
  };
}

/** The outline of the document (GET /openapi.json's response schema); operations stay free-form. */
export const openApiDocumentSchema = z.object({
  openapi: z.string(),
  info: z.object({ title: z.string(), version: z.string(), description: z.optional(z.string()) }),
  servers: z.array(z.object({ url: z.string() })),
  components: z.record(z.string(), z.unknown()),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

export function buildOpenApiDocument(groups: RouteGroup[], serverUrl = API_BASE_PATH): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const group of groups) {
    for (const route of group.routes) {
      // Site paths (pages, images) are not operations of the API.
      if (route.site) continue;
      paths[route.path] ??= {};
      const path = paths[route.path];
      path[route.method.toLowerCase()] = operation(group, route);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stepwise — Training and Documentation Service API',
      version: '2.0',
      description:
        'Guides, wikis, courses and training records. Authenticate with `Authorization: api <token>` from ' +
        'POST /user/token. On a private site (the default) every operation without `x-open-on-private-site` ' +
        'answers 401 to a request without a valid token. Append `?pretty` for indented JSON; send `Accept: ' +
        'application/xml` or `?format=xml` for XML. Lists page with `limit` (1-200, default 20) and ' +
        '`offset` (0-100000; larger is a 422). Strings must be well-formed Unicode (no lone surrogates) and ' +
        'bodies nest at most 64 levels (422 otherwise).',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The value `api <token>`' },
      },
    },
    paths,
  };
}
