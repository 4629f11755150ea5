/**
 * The one infra test that runs esbuild: the fallback bundled exactly as deployed (CommonJS with its
 * package.json, the route manifest in a file beside it), then executed, so bundling options and embeds
 * are proven to work.
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_PACKAGE_JSON, ProjectFunction } from '../../infra/constructs/project-function.ts';
import { embedBundling } from '../../infra/embeds.ts';
import { loadBundle } from '../../infra/verify/load-bundle.ts';
import { EMBED_DIR_ENV, EMBED_FILE } from '../../shared/http/embedded.ts';
import { functionEntry } from '../../infra/repo-paths.ts';
import { FIXTURE_GROUPS } from './support.ts';

type Handler = (event: unknown) => Promise<{ statusCode: number; headers?: Record<string, string>; body?: string }>;

let bundleDir: string;
beforeAll(() => {
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'stepwise-bundle-')) });
  const stack = new Stack(app, 'Bundle');
  new ProjectFunction(stack, 'Fallback', {
    entry: functionEntry('fallback'),
    description: 'fallback under test',
    environment: { GROUP_FUNCTIONS: '{}' },
    logRetention: RetentionDays.ONE_WEEK,
    logLevel: 'INFO',
    alarmTopic: new Topic(stack, 'Alarms'),
    embeds: embedBundling(['routeManifest'], FIXTURE_GROUPS),
  });
  const assembly = app.synth();
  const resources = Object.values(assembly.getStackByName('Bundle').template.Resources) as Array<{
    Type: string;
    Properties: any;
  }>;
  const fn = resources.find((resource) => resource.Type === 'AWS::Lambda::Function');
  // The asset's S3 key is `<hash>.zip`; the cloud assembly keeps it unzipped as `asset.<hash>`.
  bundleDir = join(assembly.directory, `asset.${fn!.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
}, 60_000);

const event = (method: string, path: string) => ({
  version: '2.0',
  routeKey: '$default',
  rawPath: path,
  rawQueryString: '',
  headers: {},
  isBase64Encoded: false,
  requestContext: {
    http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'vitest' },
    requestId: 'test',
  },
});

describe('function bundles', () => {
  it('are CommonJS, marked so by their own package.json inside this "type": "module" repo, with a source map', () => {
    const code = readFileSync(join(bundleDir, 'index.js'), 'utf8');
    expect(code).not.toContain('import.meta');
    expect(JSON.parse(readFileSync(join(bundleDir, 'package.json'), 'utf8'))).toMatchObject(BUNDLE_PACKAGE_JSON);
    expect(existsSync(join(bundleDir, 'index.js.map'))).toBe(true);
  });

  it('carry the environment credential provider, not the SDK chain a Lambda never reaches', () => {
    const code = readFileSync(join(bundleDir, 'index.js'), 'utf8');
    // The fallback's Lambda client is in the bundle, so a credential provider is too.
    expect(code).toContain('No AWS credentials in the environment');
    for (const unreachable of [
      '@aws-sdk/credential-provider-sso',
      '@aws-sdk/credential-provider-ini',
      '@aws-sdk/credential-provider-process',
    ]) {
      expect(code).not.toContain(unreachable);
    }
  });

  it('carry the route manifest in a file beside them: the fallback tells 405 from 404, no environment', async () => {
    expect(existsSync(join(bundleDir, EMBED_FILE.routeManifest))).toBe(true);
    expect(readFileSync(join(bundleDir, 'index.js'), 'utf8')).not.toContain('/things');
    delete process.env[EMBED_DIR_ENV];
    const { handler } = (await loadBundle(join(bundleDir, 'index.js'))) as { handler: Handler };
    const wrongMethod = await handler(event('PUT', '/api/2.0/things'));
    expect(wrongMethod.statusCode).toBe(405);
    const unknown = await handler(event('GET', '/api/2.0/no-such-thing'));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('Endpoint not found');
  });
});
