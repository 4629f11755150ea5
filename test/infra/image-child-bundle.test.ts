/**
 * The image child (decision 162) in a deployed asset: bundling a function that reads images
 * builds `image-child.js` beside its CommonJS bundle (a side bundle, decision 155, with sharp left
 * external like the bundle's own), and the bundle forks that file, not the TypeScript source.
 * Synthesizes with `nodeModules: ['sharp']`, so npm installs sharp into the asset (the registry is
 * needed, as for any synth of the media functions). The asset sits inside the repository, so
 * sharp's JavaScript there finds this machine's native sharp (as verify:deploy does).
 * About 40 s (npm's install of sharp), so it runs when STEPWISE_SYNTH_SHARP=1; `npm run
 * verify:deploy` covers the same on every run (its side-bundle check loads image-child.js, and
 * test/api/media-bombs.test.ts runs against the synthesized media bundles).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProjectFunction } from '../../infra/constructs/project-function.ts';
import { REPO_ROOT } from '../../infra/repo-paths.ts';
import { loadBundle } from '../../infra/verify/load-bundle.ts';
import { SVG_BLUR_BOMB } from '../support/image-bombs.ts';

const OUT = join(REPO_ROOT, 'node_modules', '.cache', 'stepwise-image-child-bundle');
let assetDir: string;

const enabled = process.env.STEPWISE_SYNTH_SHARP === '1';

beforeAll(() => {
  if (!enabled) return;
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const app = new App({ outdir: OUT });
  const stack = new Stack(app, 'ImageChild');
  new ProjectFunction(stack, 'Images', {
    entry: join(REPO_ROOT, 'test', 'infra', 'fixtures', 'image-entry.ts'),
    description: 'image child under test',
    environment: {},
    logRetention: RetentionDays.ONE_WEEK,
    logLevel: 'INFO',
    alarmTopic: new Topic(stack, 'Alarms'),
    nodeModules: ['sharp'],
  });
  const assembly = app.synth();
  const fn = Object.values(assembly.getStackByName('ImageChild').template.Resources as Record<string, any>).find(
    (resource) => resource.Type === 'AWS::Lambda::Function',
  );
  assetDir = join(assembly.directory, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
}, 300_000);

describe.runIf(enabled)('the image child in a bundle', () => {
  it('is built beside the bundle with sharp left external, and the asset maps #image-child to it', () => {
    expect(existsSync(join(assetDir, 'image-child.js'))).toBe(true);
    expect(JSON.parse(readFileSync(join(assetDir, 'package.json'), 'utf8')).imports).toMatchObject({
      '#image-child': './image-child.js',
    });
    // The child loads the sharp installed beside it; the function's own bundle no longer loads sharp.
    const child = readFileSync(join(assetDir, 'image-child.js'), 'utf8');
    expect(/(require|import)\("sharp"\)/.test(child), 'image-child.js loads sharp by name').toBe(true);
    expect(child.includes('libvips'), 'image-child.js carries no copy of sharp').toBe(false);
    const bundle = readFileSync(join(assetDir, 'index.js'), 'utf8');
    expect(bundle.includes('"sharp"'), 'index.js names no sharp').toBe(false);
  });

  it('reads an image in the bundled child and refuses SVG, from the CommonJS bundle', async () => {
    const { handler } = (await loadBundle(join(assetDir, 'index.js'))) as {
      handler: (event: { base64: string }) => Promise<unknown>;
    };
    const png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    expect(await handler({ base64: png.toString('base64') })).toEqual({ width: 30, height: 20, format: 'png' });
    expect(await handler({ base64: SVG_BLUR_BOMB.toString('base64') })).toEqual({ refused: 'unsupported_format' });
  });
});
