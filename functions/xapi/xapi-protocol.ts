/**
 * The xAPI wire rules every LRS resource shares (docs/lrs.md): the alternate request syntax
 * (a form POST with `?method=`), the X-Experience-API-Version header (required on every request
 * but GET /xapi/about; answered on every reply), HTTP Basic LRS credentials checked before the
 * body is read, multipart/mixed bodies, and error replies.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  getMultipartBoundary,
  MultipartParseError,
  parseMultipart as readMultipart,
} from '@remix-run/multipart-parser';
import { BadRequestError, ForbiddenError, UnauthenticatedError, ValidationError } from '../../shared/domain/errors.ts';
import { sha256Hex } from '../../shared/domain/secrets.ts';
import { allows, type LrsAccess, type LrsScope } from '../../shared/domain/xapi/scopes.ts';
import type { JsonObject } from '../../shared/domain/xapi/statement-rules.ts';
import { getLrsCredential } from '../../shared/db/entities/lrs-credential.ts';
import { getCmi5Session } from '../../shared/db/entities/cmi5-session.ts';
import { siteUrl } from '../../shared/config.ts';
import { rawReply, type Reply, type RouteRequest } from '../../shared/http/route.ts';

export const XAPI_VERSIONS = ['1.0.3', '2.0.0'] as const;
const VERSION_HEADER = 'x-experience-api-version';

/** A request as the LRS reads it: the alternate syntax already unfolded into method, headers and body. */
export interface XapiRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  query: URLSearchParams;
  headers: Record<string, string>;
  body: Buffer;
  /** The version the client speaks, as answered back: 1.0.3 (any 1.0.x) or 2.0.0. */
  version: (typeof XAPI_VERSIONS)[number];
}

/** The headers the alternate syntax carries as form fields (xAPI 1.0.3, Communication 1.3). */
const FORM_HEADERS = ['authorization', 'x-experience-api-version', 'content-type', 'if-match', 'if-none-match'];

function unfoldAlternateSyntax(request: RouteRequest, method: string): Omit<XapiRequest, 'version'> {
  const query = new URLSearchParams(request.rawQueryString);
  const alternate = query.get('method');
  if (alternate === null || method !== 'POST')
    return {
      method: method as XapiRequest['method'],
      query,
      headers: request.headers,
      body: request.rawBody ?? Buffer.alloc(0),
    };
  const upper = alternate.toUpperCase();
  if (!['GET', 'PUT', 'POST', 'DELETE'].includes(upper))
    throw new BadRequestError(`method: ${alternate} is not allowed`);
  if ([...query.keys()].some((key) => key !== 'method'))
    throw new BadRequestError('The alternate request syntax takes every parameter in the form body, not the URL');
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.toLowerCase().startsWith('application/x-www-form-urlencoded'))
    throw new BadRequestError('The alternate request syntax needs an application/x-www-form-urlencoded body');
  const form = new URLSearchParams((request.rawBody ?? Buffer.alloc(0)).toString('utf8'));
  const headers: Record<string, string> = { ...request.headers };
  delete headers['content-type'];
  const params = new URLSearchParams();
  let content = '';
  for (const [name, value] of form) {
    const lower = name.toLowerCase();
    if (FORM_HEADERS.includes(lower)) headers[lower] = value;
    else if (name === 'content') content = value;
    else params.append(name, value);
  }
  return { method: upper as XapiRequest['method'], query: params, headers, body: Buffer.from(content, 'utf8') };
}

/** Unfolds the request and checks the version header (`aboutResource`: GET /xapi/about needs none). */
export function xapiRequest(request: RouteRequest, method: string, aboutResource = false): XapiRequest {
  const unfolded = unfoldAlternateSyntax(request, method);
  const sent = unfolded.headers[VERSION_HEADER];
  if (sent === undefined) {
    if (aboutResource) return { ...unfolded, version: '1.0.3' };
    throw new BadRequestError('X-Experience-API-Version: the header is required');
  }
  const version = sent.trim();
  if (/^1\.0(\.\d+)?$/.test(version)) return { ...unfolded, version: '1.0.3' };
  if (version === '2.0' || version === '2.0.0') return { ...unfolded, version: '2.0.0' };
  throw new BadRequestError(`X-Experience-API-Version: ${sent} is not a version this LRS speaks (1.0.x, 2.0.0)`);
}

/** Who is calling the LRS: an LRS credential (Basic) and the authority its statements get. */
export interface LrsCaller {
  key: string;
  name: string;
  scopes: LrsScope[];
  authority: JsonObject;
  /** A cmi5 AU's session (its auth-token): its statements are held to the AU rules. */
  cmi5?: { sessionId: string };
}

const BASIC = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i;

/** The homePage of the accounts the LRS names its credentials by. */
export function lrsHomePage(): string {
  return `${siteUrl().replace(/\/+$/, '')}/xapi`;
}

/** HTTP Basic: the credential's key and secret. 401 for anything else, before the body is looked at. */
export async function authenticateLrs(headers: Record<string, string>): Promise<LrsCaller> {
  const match = BASIC.exec(headers.authorization ?? '');
  if (!match) throw new UnauthenticatedError('HTTP Basic LRS credentials are required');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const key = colon < 0 ? decoded : decoded.slice(0, colon);
  const secret = colon < 0 ? '' : decoded.slice(colon + 1);
  if (SESSION_KEY.test(key)) {
    const session = await authenticateSession(key, secret);
    if (!session) throw new UnauthenticatedError('Invalid LRS credentials');
    return session;
  }
  const credential = await getLrsCredential(key);
  const presented = Buffer.from(sha256Hex(secret), 'hex');
  // Compared whatever was found, so a wrong key and a wrong secret take alike (no enumeration).
  const stored = Buffer.from(credential?.secret_hash ?? sha256Hex(`none:${secret}`), 'hex');
  if (!credential || !timingSafeEqual(presented, stored)) throw new UnauthenticatedError('Invalid LRS credentials');
  return {
    key: credential.key,
    name: credential.name,
    scopes: credential.scopes,
    authority: {
      objectType: 'Agent',
      name: credential.name,
      account: { homePage: lrsHomePage(), name: credential.key },
    },
  };
}

const SESSION_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A cmi5 AU's auth-token (decision 310): Basic with its session id and the secret the fetch URL gave once. */
async function authenticateSession(sessionId: string, secret: string): Promise<LrsCaller | undefined> {
  const session = await getCmi5Session(sessionId);
  const presented = Buffer.from(sha256Hex(secret), 'hex');
  const stored = Buffer.from(session?.token_hash ?? sha256Hex(`none:${secret}`), 'hex');
  if (!session?.token_hash || !timingSafeEqual(presented, stored)) return undefined;
  return {
    key: session.session_id,
    name: 'cmi5 AU session',
    // What an AU may do: its statements, reading what it stored, its state and profiles.
    scopes: ['statements/write', 'statements/read/mine', 'state', 'profile'],
    authority: { objectType: 'Agent', name: 'cmi5 AU session', account: { homePage: lrsHomePage(), name: sessionId } },
    cmi5: { sessionId },
  };
}

/** 403 unless the caller's scopes allow the access. */
export function requireScope(caller: LrsCaller, access: LrsAccess, write: boolean): void {
  if (!allows(caller.scopes, access, write))
    throw new ForbiddenError(`This LRS credential's scopes (${caller.scopes.join(', ')}) do not allow this`);
}

export function versionHeaders(version: string): Record<string, string> {
  return { 'x-experience-api-version': version };
}

/** A JSON reply with the version header. */
export function xapiJson(status: number, body: unknown, version: string, headers: Record<string, string> = {}): Reply {
  return rawReply(status, JSON.stringify(body), 'application/json', { ...versionHeaders(version), ...headers });
}

export function xapiEmpty(status: number, version: string, headers: Record<string, string> = {}): Reply {
  return { kind: 'reply', status, raw: true, body: '', headers: { ...versionHeaders(version), ...headers } };
}

/** Every error of the group, LRS or admin routes: `{message}` and the version header (decision 274). */
export function xapiErrorReply(status: number, message: string, error?: unknown): Reply {
  const headers: Record<string, string> = { ...versionHeaders('1.0.3') };
  if (status === 401) headers['www-authenticate'] = 'Basic realm="xAPI"';
  // The admin routes' 422 lists its field problems, as every API route's does.
  const errors = error instanceof ValidationError ? { errors: error.errors } : {};
  return rawReply(status, JSON.stringify({ error: true, message, ...errors }), 'application/json', headers);
}

/** One part of a multipart/mixed body. */
export interface Part {
  headers: Record<string, string>;
  body: Buffer;
}

/** The boundary of a multipart/mixed Content-Type, or undefined for any other type. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/mixed\b/i.test(contentType.trim())) return undefined;
  const boundary = getMultipartBoundary(contentType);
  if (!boundary) throw new BadRequestError('Content-Type: multipart/mixed needs a boundary');
  return boundary;
}

/**
 * Splits a multipart body (RFC 2046) into its parts with @remix-run/multipart-parser (any
 * `multipart/*`, parts without Content-Disposition kept; busboy reads form-data only); header
 * names in lower case. A malformed body is a 400. The body is in memory already: no part may be
 * larger than it, nor more than 1,000 parts.
 */
export function parseMultipart(body: Buffer, boundary: string): Part[] {
  const parts: Part[] = [];
  try {
    const limits = { maxFileSize: body.length, maxTotalSize: body.length, maxParts: 1000 };
    for (const part of readMultipart(body, { boundary, ...limits })) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(part.headers))
        if (value !== undefined) headers[name.toLowerCase()] = value.trim();
      const bytes = part.bytes;
      parts.push({ headers, body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    }
  } catch (error) {
    if (error instanceof MultipartParseError) throw new BadRequestError(`multipart/mixed: ${error.message}`);
    throw error;
  }
  if (parts.length === 0) throw new BadRequestError('multipart/mixed: the body holds no part');
  return parts;
}

/** A multipart/mixed reply body of parts. */
export function multipartBody(parts: Part[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head = Object.entries(part.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n`), part.body, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** A JSON body (statements, a document merge), or a 400 naming the problem. */
export function parseJson(body: Buffer, what: string): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError(`${what}: the body is not valid JSON`);
  }
}
