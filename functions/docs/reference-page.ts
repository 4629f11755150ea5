/**
 * The interactive API reference (decision 176): Scalar's standalone renderer, served by this
 * function from its npm package (never a CDN), loads openapi.json and shows schemas, examples,
 * search and a "try it" client. The CSP admits exactly the renderer script, the one inline
 * script that starts it (by hash), inline styles, and requests to this origin.
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from '../../shared/domain/wiki-syntax/escape.ts';

type Json = Record<string, any>;

export interface ReferencePage {
  html: string;
  contentSecurityPolicy: string;
}

export function renderReferencePage(document: Json): ReferencePage {
  const base = String(document.servers?.[0]?.url ?? '');
  const configuration = {
    url: `${base}/openapi.json`,
    // No fonts, telemetry, AI agent or proxy: nothing but this origin is reached.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    showDeveloperTools: 'never',
    hideClientButton: false,
    persistAuth: false,
  };
  const start = `Scalar.createApiReference('#reference', ${JSON.stringify(configuration)});`;
  const hash = createHash('sha256').update(start).digest('base64');
  const title = escapeHtml(String(document.info?.title ?? 'API reference'));
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
</head><body>
<noscript><p>This reference needs JavaScript. Without it, read the
<a href="${escapeHtml(base)}/doc/static">static reference</a> or the
<a href="${escapeHtml(base)}/openapi.json">OpenAPI document</a>.</p></noscript>
<div id="reference"></div>
<script src="${escapeHtml(base)}/doc/renderer.js"></script>
<script>${start}</script>
</body></html>`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}
