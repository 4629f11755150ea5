/**
 * The local content origin (decision 270): a second HTTP server, on another host name than the
 * site's, that serves module package files from the modules bucket to whoever holds a launch's
 * token, as CloudFront does deployed. Package JavaScript runs here, so it never shares an origin
 * (or, with the other host name, a site and its cookies) with the site and its API.
 */
import { createServer, type Server } from 'node:http';
import type { Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { openContentRequest } from '../../shared/domain/content-token.ts';
import { contentSigningKey } from '../../shared/storage/module-content.ts';
import { contentKey, modulesBucket } from '../../shared/storage/module-objects.ts';
import { s3Client } from '../../shared/storage/s3-client.ts';

/** Headers every answer carries: content is framed by the site only, and never sniffed. */
const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

export function createContentOrigin(extraRoutes: Map<string, { type: string; body: string }> = new Map()): Server {
  return createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://content.local');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { Allow: 'GET, HEAD', ...SECURITY_HEADERS }).end();
      return;
    }
    const fixed = extraRoutes.get(url.pathname);
    if (fixed) {
      response
        .writeHead(200, { 'Content-Type': fixed.type, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS })
        .end(request.method === 'HEAD' ? undefined : fixed.body);
      return;
    }
    const opened = openContentRequest(await contentSigningKey(), url.pathname, Math.floor(Date.now() / 1000));
    if (!opened.ok) {
      response.writeHead(opened.status, { 'Content-Type': 'text/plain', ...SECURITY_HEADERS }).end(opened.reason);
      return;
    }
    const range = typeof request.headers.range === 'string' ? request.headers.range : undefined;
    try {
      const object = await s3Client().send(
        new GetObjectCommand({ Bucket: modulesBucket(), Key: contentKey(opened.importid, opened.path), Range: range }),
      );
      const headers: Record<string, string> = {
        'Content-Type': object.ContentType ?? 'application/octet-stream',
        'Accept-Ranges': 'bytes',
        'Cache-Control': 'private, max-age=300',
        ...SECURITY_HEADERS,
      };
      if (object.ContentLength !== undefined) headers['Content-Length'] = String(object.ContentLength);
      if (object.ContentRange) headers['Content-Range'] = object.ContentRange;
      response.writeHead(object.ContentRange ? 206 : 200, headers);
      const body = object.Body as Readable | undefined;
      if (request.method === 'HEAD' || !body) {
        body?.destroy();
        response.end();
        return;
      }
      body.pipe(response);
    } catch (error) {
      const name = (error as { name?: string }).name;
      const status = name === 'NoSuchKey' || name === 'NotFound' ? 404 : name === 'InvalidRange' ? 416 : 502;
      if (!response.headersSent)
        response.writeHead(status, { 'Content-Type': 'text/plain', ...SECURITY_HEADERS }).end(name ?? 'error');
      else response.destroy();
    }
  });
}

/** The content origin's base URL: the other loopback name than the site's, so the two are different sites. */
export function contentOriginUrl(siteHost: string, port: number): string {
  const host = siteHost === 'localhost' ? '127.0.0.1' : 'localhost';
  return `http://${host}:${port}`;
}
