/**
 * The OpenAPI 3.1 document, built from the route table: one operation per route, with the
 * zod schemas of params, query, body and response turned into JSON Schema.
 */
import * as z from 'zod/mini';
import { API_BASE_PATH, type RouteDef, type RouteGroup } from './route.ts';
import { parameterExample } from './parameter-examples.ts';
import { openToAnonymous } from './site-access.ts';

type JsonSchema = Record<string, unknown>;

/**
 * zod's JSON Schema, tidied for the document's readers and linters (decision 264): without `z.int()`'s
 * safe-integer bounds (noise in the docs: renderers show them as the example), and without an empty
 * `prefixItems` (zod's `z.tuple([])`; JSON Schema 2020-12 wants at least one item there; `items: false`
 * and `maxItems: 0` beside it already say "an empty array"), and with `items: false` said as
 * `items: {not: {}}` (the same: no value is an allowed item), since Spectral wants `items` a schema.
 */
function tidySchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidySchema);
  if (typeof node !== 'object' || node === null) return node;
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'prefixItems' && Array.isArray(value) && value.length === 0) continue;
    result[key] = tidySchema(value);
  }
  // `items: false` (no item at all) said as a schema no value meets: linters want `items` a schema.
  if (result.type === 'array' && result.items === false) result.items = { not: {} };
  return result;
}

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  const { $schema, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return tidySchema(rest) as JsonSchema;
}

const ERROR_RESPONSES: Record<string, { description: string }> = {
  '400': { description: 'Invalid JSON in the request body' },
  '401': { description: 'Authentication required, or an invalid token: {"message"}' },
  '403': { description: 'The caller may not do this: {"message"}' },
  '404': { description: 'Unknown resource or route: {"message"}' },
  '405': { description: 'Method not allowed on this path' },
  '409': {
    description:
      'Stale revisionid: the body is the current resource; or a request with this Idempotency-Key is still running',
  },
  '422': { description: 'Invalid input: {"message", "errors": [{"field", "code", "message"}]}' },
};

function parameters(route: RouteDef): JsonSchema[] {
  const result: JsonSchema[] = [];
  const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const pathSchema = route.params ? jsonSchema(route.params, 'input') : undefined;
  for (const name of pathNames) {
    const property = (pathSchema?.properties as Record<string, JsonSchema> | undefined)?.[name];
    const example = parameterExample(name, route.params);
    result.push({
      name,
      in: 'path',
      required: true,
      schema: property ?? { type: 'string' },
      ...(example !== undefined ? { example } : {}),
    });
  }
  if (route.query) {
    const querySchema = jsonSchema(route.query, 'input');
    const required = new Set((querySchema.required as string[] | undefined) ?? []);
    // Optional in the schema so an unknown id is 404 first, yet required by the service (decision 178).
    if (route.revision === 'required') required.add('revisionid');
    for (const [name, schema] of Object.entries((querySchema.properties as Record<string, JsonSchema>) ?? {})) {
      const example = route.queryExample ? route.queryExample[name] : parameterExample(name, route.query);
      result.push({
        name,
        in: 'query',
        required: required.has(name),
        schema,
        ...(example !== undefined ? { example } : {}),
      });
    }
  }
  if (takesIdempotencyKey(route))
    result.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe (decision 223): the same key with the same request within 24 hours answers ' +
        'the first answer again (header `Idempotent-Replayed: true`) without doing the work twice; ' +
        'the same key with another request is 422; while the first is still running, 409. Keys are ' +
        "the caller's own. 1-255 visible ASCII characters, bare or quoted.",
      schema: { type: 'string', minLength: 1, maxLength: 257 },
      example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
    });
  return result;
}

/** Writes take the header, except those whose answer holds a credential (they refuse it). */
function takesIdempotencyKey(route: RouteDef): boolean {
  return route.method !== 'GET' && !route.mintsCredentials;
}

const ROLE_NOTE: Record<string, string> = {
  user: 'requires a token (any signed-in user)',
  author: 'requires the token of an Author or Admin (403 for a User)',
  admin: "requires an Admin's token (403 for others)",
};

/**
 * Who may call the route, in words, for the docs: a `public` route is public only on a public
 * site, since sites are private by default (decision 79); the same rule as `security` below.
 */
export function accessNote(route: Pick<RouteDef, 'auth' | 'openOnPrivateSite'>): string {
  if (openToAnonymous(route, true))
    return route.auth === 'public'
      ? 'Public, on every site (also private ones).'
      : 'Anyone, also on private sites; the route decides further (see the description).';
  if (route.auth === 'public') return 'Public on public sites; requires a token on private sites (the default).';
  if (route.auth === 'custom')
    return (
      'Decided per request (see the description); anonymous callers only on public sites, ' +
      'a token on private sites (the default).'
    );
  return `Signed in: ${ROLE_NOTE[route.auth]}.`;
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

/** The route's own response example, else its group's by `METHOD /path`. */
export function responseExampleOf(group: RouteGroup, route: RouteDef): unknown {
  return route.responseExample ?? group.responseExamples?.[`${route.method} ${route.path}`];
}

function operation(group: RouteGroup, route: RouteDef): JsonSchema {
  const status = String(route.status ?? 200);
  const responseExample = responseExampleOf(group, route);
  const example = responseExample !== undefined ? { example: responseExample } : {};
  const responses: Record<string, unknown> = {
    [status]: {
      description: status === '204' ? 'No content' : 'Success',
      ...(route.response && status !== '204'
        ? { content: { 'application/json': { schema: jsonSchema(route.response, 'output'), ...example } } }
        : {}),
    },
  };
  for (const [code, response] of Object.entries(ERROR_RESPONSES)) {
    if (code === '401' && route.auth === 'public' && route.openOnPrivateSite) continue;
    if (code === '403' && (route.auth === 'public' || route.auth === 'user')) continue;
    // A write may also be refused for its Idempotency-Key (400 malformed, 422 reused).
    const checksInput = route.body || route.query || takesIdempotencyKey(route);
    if ((code === '400' || code === '422') && !checksInput) continue;
    responses[code] = response;
  }
  for (const [code, response] of Object.entries(route.errorResponses ?? {})) {
    responses[code] = {
      description: response.description,
      ...(response.schema
        ? { content: { 'application/json': { schema: jsonSchema(response.schema, 'output') } } }
        : {}),
    };
  }
  return {
    operationId: `${group.name}_${route.method.toLowerCase()}_${route.path
      .replace(/[{}]/g, '')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')}`,
    tags: route.tags ?? [group.name],
    summary: route.summary,
    description: `${route.description ? `${route.description}\n\n` : ''}**Access:** ${accessNote(route)}`,
    ...(route.deprecated ? { deprecated: true } : {}),
    'x-auth': route.auth,
    'x-open-on-private-site': openToAnonymous(route, true),
    'x-access': accessNote(route),
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
  info: z.object({
    title: z.string(),
    version: z.string(),
    description: z.optional(z.string()),
    contact: z.optional(z.object({ name: z.string() })),
    license: z.optional(z.object({ name: z.string(), identifier: z.optional(z.string()) })),
  }),
  tags: z.optional(z.array(z.object({ name: z.string(), description: z.optional(z.string()) }))),
  servers: z.array(z.object({ url: z.string() })),
  components: z.record(z.string(), z.unknown()),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

interface OperationTags {
  tags: string[];
}

/** A tag is a route group's name (a few routes name another tag); said in words for the docs. */
function tagDescription(name: string): string {
  return `Operations of ${name.replace(/[-_]/g, ' ')}`;
}

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
  // Every tag an operation names is declared once at the top, in order (decision 264).
  const tagNames = new Set<string>();
  for (const methods of Object.values(paths))
    for (const operation of Object.values(methods))
      for (const tag of (operation as OperationTags).tags) tagNames.add(tag);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stepwise — Training and Documentation Service API',
      version: '2.0',
      // Each site is self-hosted: whoever runs it answers for it.
      contact: { name: 'The operator of this Stepwise site' },
      license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' },
      description:
        'Guides, wikis, courses and training records. Authenticate with `Authorization: api <token>` from ' +
        'POST /user/token. On a private site (the default) every operation without `x-open-on-private-site` ' +
        'answers 401 to a request without a valid token. Append `?pretty` for indented JSON; send `Accept: ' +
        'application/xml` or `?format=xml` for XML. Lists page with `limit` (1-200, default 20) and ' +
        '`offset` (0-100000; larger is a 422). Strings must be well-formed Unicode (no lone surrogates) and ' +
        'bodies nest at most 64 levels (422 otherwise).',
    },
    servers: [{ url: serverUrl }],
    tags: [...tagNames].sort().map((name) => ({ name, description: tagDescription(name) })),
    components: {
      securitySchemes: {
        // An http scheme cannot carry the `api ` prefix, so the key is the whole header value. Scalar fills its
        // auth field and every generated request (curl and the rest) with `x-scalar-secret-token`: the reader
        // sees `Authorization: api YOUR_TOKEN` and replaces only the token.
        apiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The value `api <token>`: the word `api`, a space, then the token from POST /user/token.',
          'x-scalar-secret-token': 'api YOUR_TOKEN',
        },
      },
    },
    paths,
  };
}
