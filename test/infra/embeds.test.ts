import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { embedBundling } from '../../infra/embeds.ts';
import { routeManifest } from '../../infra/route-manifest.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { FIXTURE_GROUPS } from './support.ts';

describe('embedBundling', () => {
  it('adds nothing for a group without embeds', () => {
    expect(embedBundling([], FIXTURE_GROUPS)).toEqual({ define: {}, inject: [] });
  });

  it('points process.env.<NAME> at an injected export holding the JSON text', async () => {
    const { define, inject } = embedBundling(['routeManifest', 'openApi'], FIXTURE_GROUPS);
    expect(define).toEqual({
      'process.env.STEPWISE_OPENAPI': '__stepwise_embed_STEPWISE_OPENAPI',
      'process.env.STEPWISE_ROUTE_MANIFEST': '__stepwise_embed_STEPWISE_ROUTE_MANIFEST',
    });
    expect(inject).toHaveLength(1);
    const injected = await import(pathToFileURL(inject[0]).href);
    expect(JSON.parse(injected.__stepwise_embed_STEPWISE_ROUTE_MANIFEST)).toEqual(routeManifest(FIXTURE_GROUPS));
    expect(JSON.parse(injected.__stepwise_embed_STEPWISE_OPENAPI)).toEqual(
      JSON.parse(JSON.stringify(buildOpenApiDocument(FIXTURE_GROUPS))),
    );
  });

  it('names the injected file by its content', () => {
    const first = embedBundling(['routeManifest'], FIXTURE_GROUPS).inject[0];
    expect(embedBundling(['routeManifest'], FIXTURE_GROUPS).inject[0]).toBe(first);
    expect(embedBundling(['routeManifest'], FIXTURE_GROUPS.slice(1)).inject[0]).not.toBe(first);
    expect(readFileSync(first, 'utf8')).toMatch(/^export const __stepwise_embed_STEPWISE_ROUTE_MANIFEST = "/);
  });
});
