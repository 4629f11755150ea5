/**
 * A front proxy for the local S3 emulator that adds the checks s3rver leaves out:
 * - browser uploads (multipart POST to /<bucket>) must carry a valid SigV4 POST policy, and
 *   its size limits hold: an oversize file is answered 400 EntityTooLarge and never stored;
 * - anonymous requests are refused, as on a bucket with public access blocked.
 * Everything else streams through untouched (s3rver itself checks header and query SigV4).
 * After an object is created (PUT, copy, browser POST, completed multipart upload) and s3rver
 * answered 2xx, `onObjectCreated` is told, as S3 event notifications would be.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import busboy from 'busboy';
import { checkFileSize, evaluatePostPolicy, type S3ErrorAnswer, type SizeRange } from './s3-post-policy.ts';

export interface S3PostPolicyProxy {
  url: string;
  close(): Promise<void>;
}

export interface S3PostPolicyProxyOptions {
  upstream: { host: string; port: number };
  /** 0 or undefined: any free port. */
  port?: number;
  /** Secret key of an access key id, or undefined if the key is unknown. */
  secretFor: (accessKeyId: string) => string | undefined;
  /** Called after s3rver stored an object (its answer was 2xx); never awaited. */
  onObjectCreated?: (created: CreatedObject) => void;
}

/** An object the proxy saw being created, named as S3 event notifications name it. */
export interface CreatedObject {
  bucket: string;
  key: string;
  eventName:
    | 'ObjectCreated:Put'
    | 'ObjectCreated:Post'
    | 'ObjectCreated:Copy'
    | 'ObjectCreated:CompleteMultipartUpload';
  sourceIp: string;
}

/** Browser-upload forms are small; only the file part may be large. */
const FORM_LIMITS = { files: 1, fields: 100, fieldSize: 1024 * 1024 };

export async function startS3PostPolicyProxy(options: S3PostPolicyProxyOptions): Promise<S3PostPolicyProxy> {
  const agent = new http.Agent({ keepAlive: true });
  const forward: Forward = (req, res, body, created) =>
    forwardToUpstream(options.upstream, agent, req, res, body, (status) => {
      if (created && status >= 200 && status < 300) options.onObjectCreated?.(created);
    });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const uploadBucket = browserUploadBucket(req, url);
    if (escapesBucket(req.url ?? '/')) {
      answerAfterBody(req, res, OUTSIDE_BUCKET);
    } else if (uploadBucket !== undefined) {
      void handleBrowserUpload(req, res, uploadBucket, options.secretFor, forward);
    } else if (isAnonymous(req, url)) {
      answerAfterBody(req, res, { status: 403, code: 'AccessDenied', message: 'Access Denied' });
    } else {
      forward(req, res, undefined, objectCreatedBy(req, url));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}

const OUTSIDE_BUCKET: S3ErrorAnswer = {
  status: 400,
  code: 'InvalidObjectName',
  message: 'The object key names a path outside its bucket',
};

/**
 * Whether a request path's key would resolve outside its bucket's folder of the data directory
 * (s3rver maps keys to files): a `..` or `.` segment, raw or percent-encoded, split on `/` or
 * `\`, or an encoding that does not decode. Defence in depth; S3 itself has no such folders,
 * and the site import refuses such keys first (docs/hostile-input.md).
 */
export function escapesBucket(rawUrl: string): boolean {
  const rawPath = rawUrl.split('?')[0] ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return true;
  }
  if (decoded.includes('\0')) return true;
  return decoded
    .split(/[\\/]/)
    .slice(1)
    .some((segment) => segment === '..' || segment === '.');
}

/** POST /<bucket> with a multipart form and no sub-resource query is a browser upload. */
function browserUploadBucket(req: http.IncomingMessage, url: URL): string | undefined {
  if (req.method !== 'POST' || url.search !== '') return undefined;
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data')) return undefined;
  const match = /^\/([^/]+)\/?$/.exec(url.pathname);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

function isAnonymous(req: http.IncomingMessage, url: URL): boolean {
  if (req.method === 'OPTIONS') return false; // CORS preflight is never signed
  const query = url.searchParams;
  return (
    req.headers.authorization === undefined &&
    !query.has('X-Amz-Algorithm') &&
    !query.has('X-Amz-Signature') &&
    !query.has('Signature')
  );
}

type Forward = (req: http.IncomingMessage, res: http.ServerResponse, body?: Buffer, created?: CreatedObject) => void;

/** The object a signed request creates if it succeeds: PUT (or copy) of a key, multipart completion. */
function objectCreatedBy(req: http.IncomingMessage, url: URL): CreatedObject | undefined {
  const match = /^\/([^/]+)\/(.+)$/.exec(url.pathname);
  if (!match) return undefined;
  const query = url.searchParams;
  const target = {
    bucket: decodeURIComponent(match[1]!),
    key: decodeURIComponent(match[2]!),
    sourceIp: sourceIpOf(req),
  };
  if (
    req.method === 'PUT' &&
    !query.has('uploadId') &&
    !query.has('partNumber') &&
    !query.has('tagging') &&
    !query.has('acl')
  ) {
    return { ...target, eventName: req.headers['x-amz-copy-source'] ? 'ObjectCreated:Copy' : 'ObjectCreated:Put' };
  }
  if (req.method === 'POST' && query.has('uploadId'))
    return { ...target, eventName: 'ObjectCreated:CompleteMultipartUpload' };
  return undefined;
}

function sourceIpOf(req: http.IncomingMessage): string {
  return (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
}

async function handleBrowserUpload(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  bucket: string,
  secretFor: (accessKeyId: string) => string | undefined,
  forward: Forward,
): Promise<void> {
  const outcome = await readUploadForm(req, bucket, secretFor);
  if ('error' in outcome) {
    sendS3Error(res, outcome.error);
  } else {
    // s3rver stores the object from the very same form.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: S3's POST policy placeholder, not a template
    const key = (outcome.fields.get('key') ?? '').replaceAll('${filename}', outcome.filename);
    if (escapesBucket(`/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`))
      return sendS3Error(res, OUTSIDE_BUCKET);
    forward(req, res, outcome.body, { bucket, key, eventName: 'ObjectCreated:Post', sourceIp: sourceIpOf(req) });
  }
}

/**
 * Reads the whole form, checking the policy as soon as the file part starts. The raw body
 * is kept for forwarding only while the upload is acceptable, so an oversize file is
 * drained without being held in memory.
 */
function readUploadForm(
  req: http.IncomingMessage,
  bucket: string,
  secretFor: (accessKeyId: string) => string | undefined,
): Promise<{ body: Buffer; fields: Map<string, string>; filename: string } | { error: S3ErrorAnswer }> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: FORM_LIMITS });
    } catch {
      req.resume();
      req.once('end', () => resolve({ error: malformedForm() }));
      return;
    }

    const chunks: Buffer[] = [];
    const fields = new Map<string, string>();
    let rejection: S3ErrorAnswer | undefined;
    let sizeRange: SizeRange | undefined;
    let fileSize = 0;
    let fileSeen = false;
    let filename = '';
    let pending = 1; // the parser itself, plus the file stream once it starts

    const keepsBuffering = () => rejection === undefined && (sizeRange === undefined || fileSize <= sizeRange.max);
    const settle = () => {
      if (--pending > 0) return;
      if (rejection) return resolve({ error: rejection });
      if (!fileSeen || !sizeRange) {
        return resolve({
          error: {
            status: 400,
            code: 'InvalidArgument',
            message: 'POST requires exactly one file upload per request.',
            details: { ArgumentName: 'file', ArgumentValue: 0 },
          },
        });
      }
      const sizeError = checkFileSize(fileSize, sizeRange);
      resolve(sizeError ? { error: sizeError } : { body: Buffer.concat(chunks), fields, filename });
    };

    req.on('data', (chunk: Buffer) => {
      if (keepsBuffering()) chunks.push(chunk);
      else chunks.length = 0;
    });
    // The policy covers the fields sent before the file; S3 ignores anything after it.
    const fileStarts = () => {
      fileSeen = true;
      const verdict = evaluatePostPolicy({ bucket, fields, now: new Date(), secretFor });
      if (verdict.ok) sizeRange = verdict.sizeRange;
      else rejection = verdict.error;
    };
    parser.on('field', (name, value) => {
      if (fileSeen) return;
      if (name.toLowerCase() !== 'file') {
        fields.set(name.toLowerCase(), value);
        return;
      }
      // A part without a filename arrives as a plain field; S3 stores it as the content.
      fileStarts();
      fileSize = Buffer.byteLength(value);
    });
    parser.on('file', (name, stream, info) => {
      if (name.toLowerCase() !== 'file' || fileSeen) {
        stream.resume();
        return;
      }
      filename = info.filename ?? '';
      fileStarts();
      pending++;
      stream.on('data', (data: Buffer) => {
        fileSize += data.length;
      });
      stream.once('end', settle);
    });
    parser.once('error', () => {
      // Malformed multipart: stop parsing, read the rest, then answer (the result is final).
      pending = Number.POSITIVE_INFINITY;
      req.unpipe(parser);
      req.resume();
      const answer = () => resolve({ error: malformedForm() });
      if (req.readableEnded) answer();
      else req.once('end', answer);
    });
    parser.once('close', settle);
    // A client that gives up mid-upload gets no answer; just release what was held.
    req.once('close', () => {
      if (!req.complete) {
        chunks.length = 0;
        resolve({ error: malformedForm() });
      }
    });
    req.pipe(parser);
  });
}

function malformedForm(): S3ErrorAnswer {
  return {
    status: 400,
    code: 'MalformedPOSTRequest',
    message: 'The body of your POST request is not well-formed multipart/form-data.',
  };
}

function forwardToUpstream(
  upstream: { host: string; port: number },
  agent: http.Agent,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Buffer | undefined,
  onAnswered: (status: number) => void,
): void {
  // Headers go through unchanged: the client signed this Host and these x-amz-* values.
  const headers = { ...req.headers };
  if (body) {
    delete headers['transfer-encoding'];
    headers['content-length'] = String(body.length);
  }
  const upstreamRequest = http.request(
    { host: upstream.host, port: upstream.port, method: req.method, path: req.url, headers, agent },
    (upstreamResponse) => {
      const status = upstreamResponse.statusCode ?? 502;
      res.writeHead(status, upstreamResponse.statusMessage, upstreamResponse.rawHeaders);
      pipeline(upstreamResponse, res, (error) => {
        if (!error) onAnswered(status);
      });
    },
  );
  upstreamRequest.on('error', (error) => {
    if (res.headersSent) res.destroy(error);
    else sendS3Error(res, { status: 502, code: 'InternalError', message: `S3 emulator unreachable: ${error.message}` });
  });
  if (body) upstreamRequest.end(body);
  else pipeline(req, upstreamRequest, () => {});
}

/** Reads (and discards) the request body first, so the client sees the answer, not EPIPE. */
function answerAfterBody(req: http.IncomingMessage, res: http.ServerResponse, error: S3ErrorAnswer): void {
  req.resume();
  if (req.readableEnded) sendS3Error(res, error);
  else req.once('end', () => sendS3Error(res, error));
}

function sendS3Error(res: http.ServerResponse, error: S3ErrorAnswer): void {
  const requestId = randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
  const elements = { Code: error.code, Message: error.message, ...error.details, RequestId: requestId };
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' +
    Object.entries(elements)
      .map(([name, value]) => `<${name}>${escapeXml(String(value))}</${name}>`)
      .join('') +
    '</Error>';
  res.writeHead(error.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(xml),
    'x-amz-request-id': requestId,
  });
  res.end(xml);
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!,
  );
}
