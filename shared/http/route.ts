/**
 * The route table: every endpoint is declared once, in its group's `<group>.routes.ts`, with
 * this shape. Five consumers read it (see docs/architecture.md): the group's Lambda router, the CDK
 * API stack, the local gateway, the OpenAPI document and the generic test matrix.
 */
import type * as z from 'zod/mini';
import type { ApiScope, AuthContext, Caller, SignedInAuth } from '../domain/caller.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route.
 * - public: anyone; a valid token is still resolved so the handler knows the caller.
 * - user / author / admin: a signed-in user with at least that role (401 without a token,
 *   403 with a lesser role). Roles nest: Admin > Author > User.
 * - custom: the route's `authorize` hook decides, before the body is validated (e.g. POST
 *   /users is public or admin-only by site setting); a token, when sent, is resolved as for
 *   public.
 * The level also types the handler's request: `caller` is a `Caller` on user / author / admin
 * routes (the router has rejected anonymous requests before the handler runs) and
 * `Caller | null` on public and custom ones (see `CallerFor`).
 */
export type RouteAuth = 'public' | 'user' | 'author' | 'admin' | 'custom';

/** The levels that admit anonymous requests; every other level guarantees a signed-in caller. */
export type AnonymousAuth = 'public' | 'custom';

/** The caller a handler of a route with auth `A` sees: null only where `A` admits anonymous requests. */
export type CallerFor<A extends RouteAuth> = A extends AnonymousAuth ? Caller | null : Caller;

/** The authentication a handler of a route with auth `A` sees: `user` narrowed as in `CallerFor`. */
export type AuthFor<A extends RouteAuth> = A extends AnonymousAuth ? AuthContext : SignedInAuth;

/** What a route-level `authorize` hook sees: the caller and the validated path params. */
export interface AuthorizeRequest<P = any> {
  params: P;
  auth: AuthContext;
  headers: Record<string, string>;
}

/** The request a handler sees: validated params, query and body plus the caller. */
export interface RouteRequest<P = any, Q = any, B = any, A extends RouteAuth = RouteAuth> {
  params: P;
  query: Q;
  body: B;
  /** Who is calling (`auth.user`): non-null on every route that requires a signed-in user. */
  caller: CallerFor<A>;
  /** The whole authentication result, for the token hash, the impersonator or the app id. */
  auth: AuthFor<A>;
  headers: Record<string, string>;
  /** The raw body bytes, only for routes declared with `rawBody: true`. */
  rawBody?: Buffer;
  requestId: string;
  sourceIp: string;
  /** The query string exactly as sent (no `?`): what a signature over the URL covers (remote login). */
  rawQueryString: string;
}

/** A handler may return a plain body (sent with the route's status) or a full reply. */
export interface Reply {
  readonly kind: 'reply';
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Set-Cookie values, one per cookie (API Gateway sends each as a header of its own). */
  cookies?: string[];
  /** Send `body` (a string, or a Buffer sent base64-encoded) as it is, not as JSON: HTML pages, files. */
  raw?: boolean;
}

export function reply(status: number, body?: unknown, headers?: Record<string, string>): Reply {
  return { kind: 'reply', status, body, headers };
}

/** A non-JSON body (HTML, text, or bytes such as a gzipped script) sent as it is with its content type. */
export function rawReply(
  status: number,
  text: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
): Reply {
  return { kind: 'reply', status, body: text, raw: true, headers: { ...headers, 'content-type': contentType } };
}

export function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && (value as Reply).kind === 'reply';
}

export interface RouteDef<P = any, Q = any, B = any, A extends RouteAuth = RouteAuth> {
  method: HttpMethod;
  /** API Gateway syntax, relative to /api/2.0: `/guides/{guideid}` (to the site root for `site` routes). */
  path: string;
  /**
   * A path of the site rather than of the API: served at `path` itself, outside /api/2.0
   * (pages, images, SCIM; decision 187). Routed, authenticated and tested like any route, but
   * not an operation of the OpenAPI document.
   */
  site?: boolean;
  /**
   * A page a browser opens (a `site` route answering HTML): the session cookie authenticates it
   * besides the Authorization header, and an anonymous visitor it is closed to is sent to
   * `/login?returnTo=<path>` (302) instead of getting a 401 (docs/sessions.md, decision 216).
   */
  page?: boolean;
  /**
   * A `page` route that takes an HTML form POST: the body is read as
   * application/x-www-form-urlencoded, and the router refuses it with 403 unless its `csrf` field
   * is the token of the visitor's session (or pre-session) cookie, before the body is validated
   * (decision 217).
   */
  form?: boolean;
  /**
   * An API route that also takes the session cookie: only `GET /user`, which single sign-on ends
   * with (the apps read `authToken` from it). No other API route reads the cookie, so no API
   * write can be forged from another site (decision 216).
   */
  sessionCookie?: boolean;
  /** Who may call it (see `RouteAuth`); also decides the type of the handler's `caller`. */
  auth: A;
  /**
   * The route authenticates the request itself, with credentials of its protocol (the LRS's
   * HTTP Basic credentials, decision 276): the router reads no Authorization header and sees an
   * anonymous caller, so such a route is `public` and `openOnPrivateSite`, and its handler
   * checks the credentials before it reads the body.
   */
  selfAuthenticated?: boolean;
  /**
   * Only a site API token holding this scope may call the route (SCIM, the external-courses
   * routes; shared/http/api-scopes.ts). Without it, tokens need `full` (or `read-only` for GET).
   */
  apiScope?: ApiScope;
  /**
   * Only a person acts here (a trainee, an operator, a signer): a site API token, whatever its scopes, is
   * refused with 403 before validation, so nothing is written for userid 0 (decision 250).
   */
  personOnly?: boolean;
  /**
   * Served to anonymous callers on a private site (STEPWISE_PRIVATE_SITE, the default): login,
   * registration, the password-reset pair and the API's own docs. Every other route answers
   * 401 without a valid token there, decided once in the router (shared/http/site-access.ts).
   */
  openOnPrivateSite?: boolean;
  /**
   * Path parameters are form-decoded: `+` reads as a space, as the mobile apps encode category
   * titles (a literal plus arrives as %2B). Per route, because elsewhere `+` is a plus
   * (a search for "C++", an email address).
   */
  plusAsSpace?: boolean;
  /**
   * Per-route authorization that needs more than a role (`auth: 'custom'`): runs after the
   * role check and before the query and body are validated, so a caller who may not call the
   * route gets 401/403, never a 422 listing the fields it expects.
   */
  authorize?: (request: AuthorizeRequest<P>) => void | Promise<void>;
  summary: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  /**
   * Success status when the handler returns a plain body: 200 by default. A `status: 204` route's
   * handler returns nothing, and the router answers 204 with an empty body; `reply(204)` is only
   * for a 204 that carries more (a cookie).
   */
  status?: number;
  params?: z.ZodMiniType<P>;
  query?: z.ZodMiniType<Q>;
  body?: z.ZodMiniType<B>;
  /** Documents the success body in OpenAPI; not enforced at run time. */
  response?: z.ZodMiniType;
  /** A valid request body: shown in the docs and used by the test matrix. */
  example?: unknown;
  /**
   * Valid query parameters (as the strings a URL carries), shown in the docs as each
   * parameter's example. Required when the query schema has required parameters.
   */
  queryExample?: Record<string, string>;
  /**
   * A success body as the route answers it, shown in the docs; valid against `response`
   * (test/unit/openapi-examples.test.ts).
   */
  responseExample?: unknown;
  /**
   * How the route takes `?revisionid=`: 'required' where the service answers 422 `missing_field`
   * without it once the resource is found (decision 16; the schema keeps it optional so an unknown id
   * is 404 first), 'when-given' where it is only checked when sent. The OpenAPI document marks the
   * parameter required from this (decision 178).
   */
  revision?: 'required' | 'when-given';
  /** Pass the body through as bytes instead of parsing JSON (uploads). */
  rawBody?: boolean;
  /**
   * The answer holds a credential (a token, a signing secret, a presigned upload, a reset):
   * `Idempotency-Key` is refused with 422, since a kept answer must never hold a secret
   * (shared/http/idempotency.ts, decision 223).
   */
  mintsCredentials?: boolean;
  /**
   * Error answers the route gives beyond the usual ones (shared/http/openapi.ts ERROR_RESPONSES),
   * documented in the OpenAPI document: e.g. a `user` route's 403 that is not about the role.
   */
  errorResponses?: Record<string, { description: string; schema?: z.ZodMiniType }>;
  /** Extension fields the OpenAPI document shows (e.g. beyond-spec, experimental notes). */
  extensions?: Record<string, unknown>;
  /*
   * Method syntax on purpose: its parameter is checked bivariantly, so a route whose handler
   * needs a non-null caller still fits the untyped `RouteDef[]` of a group's table.
   */
  handler(request: RouteRequest<P, Q, B, A>): Promise<unknown>;
}

/**
 * Declares a route with inferred types; the identity function keeps the table plain data.
 * `A` is inferred from the `auth` literal and decides the handler's `caller` type.
 */
export function route<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  const A extends RouteAuth = RouteAuth,
>(definition: RouteDef<P, Q, B, A>): RouteDef<P, Q, B, A> {
  return definition;
}

/** DynamoDB item actions a group may be granted (infra/cdk/grants.ts). */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem';

/**
 * Object access by key prefix (shared/storage/*-objects.ts): `read` GetObject (and presigned
 * GETs), `write` PutObject (and presigned POST uploads), `delete` DeleteObject with the listing
 * a prefix delete needs. 'read' is GetObject on the whole bucket; 'readwrite' all three on it.
 */
export interface BucketAccess {
  read?: string[];
  write?: string[];
  delete?: string[];
  /** s3:ListBucket on the whole bucket, so that a HEAD of a missing key answers 404, not 403. */
  headMissing?: boolean;
}

/** What a group's function may touch; the CDK turns it into least-privilege grants. */
export interface GroupAccess {
  /**
   * 'read': GetItem, BatchGetItem, Query; 'readwrite' adds PutItem, UpdateItem and DeleteItem
   * (also as transaction items). A list names exactly the actions.
   */
  table: 'none' | 'read' | 'readwrite' | TableAction[];
  /**
   * dynamodb:ConditionCheckItem: transactions that check another item (the entities of comments,
   * tags, wikis, work logs, approval processes, training modules, shared/db/entities/document-check.ts).
   */
  conditionChecks?: boolean;
  /** dynamodb:BatchWriteItem besides readwrite: bulk deletes through shared/db/batch.ts batchDelete. */
  batchWrite?: boolean;
  mediaBucket?: 'read' | 'readwrite' | BucketAccess;
  modulesBucket?: 'read' | 'readwrite' | BucketAccess;
  startImport?: boolean;
  /** Starts and reads the site export and import jobs (functions/site-transfer). */
  startSiteTransfer?: boolean;
  /** Sends mail through the mail port (SES on AWS): reset links, invitations. */
  sendMail?: boolean;
  /** Seals and opens identity providers' secrets: reads the secrets key from Secrets Manager (decision 240). */
  secretsKey?: boolean;
  /**
   * Signs module content URLs and runtime capabilities: reads the content signing key from Secrets
   * Manager and gets the content origin's URL (decisions 318, 346).
   */
  contentSigningKey?: boolean;
  /**
   * The site's OpenSearch collection, when its search engine is `opensearch` (decision 292):
   * `read` searches the stepwise-search-* indexes; nothing is granted on an embedded site.
   */
  searchCollection?: 'read';
}

export interface RouteGroup {
  /** Also the folder under functions/ and the Lambda's logical name. */
  name: string;
  access: GroupAccess;
  routes: RouteDef[];
  /**
   * Build-time data compiled into this group's bundle (esbuild `define`; locally, set in the
   * environment by the gateway): the route manifest or the OpenAPI document, so a function can
   * know the whole table without bundling every other group's code.
   */
  embeds?: Array<'routeManifest' | 'openApi' | 'docsRenderer' | 'pageClient' | 'scormRuntime'>;
  /**
   * Success bodies shown in the docs, by `METHOD /path` (`<group>.response-examples.json` beside
   * the routes file, attached by the route index through functions/response-examples.ts, never
   * bundled into a function: decision 355); a route's own `responseExample` comes first. Checked
   * against each route's `response` schema.
   */
  responseExamples?: Record<string, unknown>;
  /**
   * How the group's `page` routes show an error the router maps (403 for a form without its
   * CSRF token, 404, 422 ...): as a page, not the API's JSON. The status is the API's.
   */
  pageError?: PageErrorRenderer;
  /**
   * How every route of the group shows an error, where its protocol has its own error format
   * (SCIM's RFC 7644 errors). Gets the thrown error too, for what only the group knows of it.
   */
  routeError?: PageErrorRenderer;
  /** Larger limits for groups that do heavy work (media processing). */
  memoryMb?: number;
  timeoutSeconds?: number;
  /**
   * Packages with native binaries (sharp) that esbuild cannot bundle: installed next to the
   * bundle for the Lambda platform (infra/cdk/constructs/project-function.ts).
   */
  nodeModules?: string[];
}

/** Renders a page route's error: the status the router mapped and the message it carries. */
export type PageErrorRenderer = (status: number, message: string, error?: unknown) => Reply;

export function defineGroup(group: RouteGroup): RouteGroup {
  return group;
}

export const API_BASE_PATH = '/api/2.0';

/** The URL path a route (or a manifest entry) answers at: under /api/2.0 unless it is a site path. */
export function routeUrlPath(route: { path: string; site?: boolean }): string {
  return route.site ? route.path : API_BASE_PATH + route.path;
}
