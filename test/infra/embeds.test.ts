import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DOCS_RENDERER_SOURCE, embedBundling } from '../../infra/cdk/embeds.ts';
import { routeManifest } from '../../infra/cdk/route-manifest.ts';
import { EMBED_FILE } from '../../shared/http/embedded.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { FIXTURE_GROUPS } from './support.ts';

describe('embedBundling', () => {
  it('adds nothing for a group without embeds', () => {
    expect(embedBundling([], FIXTURE_GROUPS)).toEqual({ files: [] });
  });

  it('writes each embed as a JSON file, named as the bundle reads it', () => {
    const { files } = embedBundling(['routeManifest', 'openApi', 'openApi'], FIXTURE_GROUPS);
    expect(files.map((file) => file.name)).toEqual([EMBED_FILE.openApi, EMBED_FILE.routeManifest]);
    const text = (name: string) => readFileSync(files.find((file) => file.name === name)!.source, 'utf8');
    expect(JSON.parse(text(EMBED_FILE.routeManifest))).toEqual(routeManifest(FIXTURE_GROUPS));
    expect(JSON.parse(text(EMBED_FILE.openApi))).toEqual(
      JSON.parse(JSON.stringify(buildOpenApiDocument(FIXTURE_GROUPS))),
    );
  });

  it('names the written file by its content', () => {
    const first = embedBundling(['routeManifest'], FIXTURE_GROUPS).files[0].source;
    expect(embedBundling(['routeManifest'], FIXTURE_GROUPS).files[0].source).toBe(first);
    expect(embedBundling(['routeManifest'], FIXTURE_GROUPS.slice(1)).files[0].source).not.toBe(first);
  });
});

describe('the docs renderer embed (decision 176)', () => {
  it("is the renderer package's standalone script, copied as it is beside the bundle", () => {
    const { files } = embedBundling(['docsRenderer'], FIXTURE_GROUPS);
    expect(files).toEqual([{ source: DOCS_RENDERER_SOURCE, name: EMBED_FILE.docsRenderer }]);
    const script = readFileSync(DOCS_RENDERER_SOURCE, 'utf8');
    expect(script.startsWith('(function(){')).toBe(true);
    expect(script).toContain('createApiReference');
  });
});

describe("the pages' client embed (decision 294)", () => {
  it('is one script and one stylesheet built by esbuild, the script at most 100 KB gzipped', () => {
    const { files } = embedBundling(['pageClient'], FIXTURE_GROUPS);
    expect(files.map((file) => file.name)).toEqual([EMBED_FILE.pageClient]);
    const client = JSON.parse(readFileSync(files[0].source, 'utf8'));
    expect(gzipSync(client.script).length).toBeLessThanOrEqual(100 * 1024);
    // An IIFE that needs no module loader, and no eval or inline-handler markup the CSP would refuse.
    expect(client.script).toMatch(/^("use strict";)?\(\(\)=>\{/);
    expect(client.script).not.toMatch(/\beval\(|new Function\(|innerHTML/);
    expect(client.style).toContain('.editor-step');
  });
});
