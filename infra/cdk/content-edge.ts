/**
 * The deployed content origin's edge code (decision 318): two CloudFront Functions (JavaScript
 * runtime 2.0) that do what the local content server does (infra/local/content-origin.ts).
 * - The token check on `/c/<importid>/<exp>.<hmac>/<path>`: the same HMAC rule as
 *   shared/domain/content-token.ts (`content:<importid>:<exp>` under the content signing key,
 *   base64url), the key read from the distribution's KeyValueStore. A changed or expired token
 *   answers 403, a path that is no package file 404; a sound one is rewritten to the object key
 *   the local server reads (`content/<importid>/<path>`, shared/storage/module-objects.ts).
 * - The SCORM runtime's host page (decision 306) at RUNTIME_HOST_PATH, answered by the function
 *   itself: the page names the site, which is known at synth.
 * Both are plain strings: CloudFront runs them, the infra tests run them in node with its crypto.
 */
import { runtimeHostPage } from '../../shared/domain/scorm-runtime-host.ts';
import { MODULE_CONTENT_PREFIX } from '../../shared/storage/module-objects.ts';

/** The KeyValueStore key holding the content signing key (the Secrets Manager secret's value). */
export const CONTENT_KEY_NAME = 'content-signing-key';

/** Headers every answer of the content origin carries, as locally: never sniffed, no referrer. */
export const CONTENT_SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

const HEADERS_LITERAL = Object.entries(CONTENT_SECURITY_HEADERS)
  .map(([name, value]) => `'${name}': { value: '${value}' }`)
  .join(', ');

/** The viewer-request function of the package files (`/c/*`): checks the token, rewrites the path. */
export function contentTokenFunctionCode(): string {
  return `import cf from 'cloudfront';
var crypto = require('crypto');
var kvs = cf.kvs();
var PATTERN = /^\\/c\\/([1-9][0-9]{0,15})\\/([0-9]{1,12})\\.([A-Za-z0-9_-]{43})\\/(.+)$/;
function refuse(status, reason) {
  return {
    statusCode: status,
    statusDescription: status === 403 ? 'Forbidden' : 'Not Found',
    headers: { 'content-type': { value: 'text/plain' }, ${HEADERS_LITERAL} },
    body: { encoding: 'text', data: reason },
  };
}
function sameText(a, b) {
  if (a.length !== b.length) return false;
  var diff = 0;
  for (var i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
async function handler(event) {
  var request = event.request;
  var match = PATTERN.exec(request.uri);
  if (!match) return refuse(404, 'not a content path');
  var key;
  try {
    key = await kvs.get('${CONTENT_KEY_NAME}');
  } catch (e) {
    return refuse(403, 'bad token');
  }
  if (!key) return refuse(403, 'bad token');
  var expected = crypto.createHmac('sha256', key).update('content:' + match[1] + ':' + match[2]).digest('base64')
    .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  if (!sameText(match[3], expected)) return refuse(403, 'bad token');
  if (Number(match[2]) < Math.floor(Date.now() / 1000)) return refuse(403, 'expired');
  var path;
  try {
    path = decodeURIComponent(match[4]);
  } catch (e) {
    return refuse(404, 'bad path encoding');
  }
  var segments = path.split('/');
  if (path.indexOf('\\0') >= 0 || path.indexOf('\\\\') >= 0) return refuse(404, 'not a package path');
  for (var i = 0; i < segments.length; i++) {
    if (segments[i] === '..' || segments[i] === '') return refuse(404, 'not a package path');
  }
  var kept = match[4].split('/').filter(function (segment) {
    return decodeURIComponent(segment) !== '.';
  });
  request.uri = '/${MODULE_CONTENT_PREFIX}' + match[1] + '/' + kept.join('/');
  request.querystring = {};
  request.cookies = {};
  return request;
}
`;
}

/** The viewer-request function of the host page: answers it, no origin involved. */
export function runtimeHostFunctionCode(siteUrl: string): string {
  return `function handler(event) {
  if (event.request.method !== 'GET' && event.request.method !== 'HEAD')
    return { statusCode: 405, statusDescription: 'Method Not Allowed', headers: { allow: { value: 'GET, HEAD' } } };
  return {
    statusCode: 200,
    statusDescription: 'OK',
    headers: {
      'content-type': { value: 'text/html; charset=utf-8' },
      'cache-control': { value: 'no-cache' },
      ${HEADERS_LITERAL},
    },
    body: { encoding: 'text', data: ${JSON.stringify(runtimeHostPage(siteUrl))} },
  };
}
`;
}
