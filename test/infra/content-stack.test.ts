import { createHash, createHmac } from 'node:crypto';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { CONTENT_KEY_NAME, contentTokenFunctionCode, runtimeHostFunctionCode } from '../../infra/cdk/content-edge.ts';
import { contentPath } from '../../shared/domain/content-token.ts';
import { RUNTIME_HOST_PATH } from '../../shared/domain/scorm-runtime-host.ts';
import { buildTestApp, resourcesOfType } from './support.ts';

type EdgeRequest = { method: string; uri: string; querystring: object; headers: object; cookies: object };
type EdgeAnswer = EdgeRequest & { statusCode?: number; headers: Record<string, { value: string }> };

/** Runs the token check as CloudFront would, with node's crypto and a KeyValueStore holding `key`. */
function tokenCheck(key: string | undefined): (uri: string) => Promise<EdgeAnswer> {
  const body = contentTokenFunctionCode().replace("import cf from 'cloudfront';", '');
  const cf = {
    kvs: () => ({
      get: async (name: string) => {
        if (name !== CONTENT_KEY_NAME || key === undefined) throw new Error('key not found');
        return key;
      },
    }),
  };
  const handler = new Function('cf', 'require', `${body}\nreturn handler;`)(cf, (name: string) =>
    name === 'crypto' ? { createHmac, createHash } : undefined,
  );
  return (uri) => handler({ request: { method: 'GET', uri, querystring: { a: 1 }, headers: {}, cookies: { s: 1 } } });
}

describe('the content stack (decision 318)', () => {
  const { app, content, stateful } = buildTestApp({
    groups: routeGroups,
    entryFor: undefined,
    context: { 'stepwise:siteUrl': 'https://training.example.com' },
  });
  const assembly = app.synth();
  const template = Template.fromJSON(assembly.getStackByName(content.stackName).template);

  it('puts a distribution of its own in front of the modules bucket through origin access control', () => {
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    const [distribution] = Object.values(resourcesOfType(template, 'AWS::CloudFront::Distribution'));
    const config = distribution.Properties.DistributionConfig;
    expect(config.Origins).toHaveLength(1);
    expect(config.Origins[0].OriginAccessControlId).toBeDefined();
    expect(JSON.stringify(config.Origins[0].DomainName)).toContain('ModulesBucket');
    expect(config.DefaultCacheBehavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    expect(config.DefaultCacheBehavior.FunctionAssociations[0].EventType).toBe('viewer-request');
    expect(config.CacheBehaviors.map((behavior: { PathPattern: string }) => behavior.PathPattern)).toEqual([
      RUNTIME_HOST_PATH,
    ]);
    // The token check reads its key from the store; the store itself holds no value in the template.
    const functions = Object.values(resourcesOfType(template, 'AWS::CloudFront::Function'));
    const check = functions.find((fn) => fn.Properties.FunctionConfig.KeyValueStoreAssociations);
    expect(check?.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(
      Object.values(resourcesOfType(template, 'AWS::CloudFront::KeyValueStore'))[0].Properties.ImportSource,
    ).toBeUndefined();
    template.hasOutput('FillContentKeyCommand', {});
  });

  it('lets CloudFront read extracted content only, never the uploaded packages', () => {
    const statefulTemplate = Template.fromJSON(assembly.getStackByName(stateful.stackName).template);
    const policies = Object.values(resourcesOfType(statefulTemplate, 'AWS::S3::BucketPolicy'));
    const cloudfront = policies
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement) => statement.Principal?.Service === 'cloudfront.amazonaws.com');
    const resources = JSON.stringify(cloudfront.map((statement) => statement.Resource));
    expect(resources).toContain('/content/*');
    expect(resources).not.toContain('/imports/');
    expect(cloudfront.every((statement) => statement.Action === 's3:GetObject')).toBe(true);
  });

  it('gives the content URL and signing key to the signing functions only, as a dynamic reference', () => {
    const areas = assembly.stacks.filter((stack) => stack.stackName.includes('-Api-'));
    const withKey: string[] = [];
    for (const stack of areas) {
      const areaTemplate = Template.fromJSON(stack.template);
      for (const fn of Object.values(resourcesOfType(areaTemplate, 'AWS::Lambda::Function'))) {
        const variables = fn.Properties.Environment?.Variables ?? {};
        if (!variables.STEPWISE_CONTENT_SIGNING_KEY) continue;
        withKey.push(fn.Properties.Description);
        expect(JSON.stringify(variables.STEPWISE_CONTENT_SIGNING_KEY)).toContain('{{resolve:secretsmanager:');
        expect(JSON.stringify(variables.STEPWISE_CONTENT_URL)).toContain('DomainName');
      }
    }
    expect(withKey.sort()).toEqual([
      'Stepwise modules endpoints',
      'Stepwise pages endpoints',
      'Stepwise xapi endpoints',
    ]);
  });

  it('checks the launch token at the edge with the same rule as the API signs it', async () => {
    const key = 'k'.repeat(64);
    const check = tokenCheck(key);
    const now = Math.floor(Date.now() / 1000);
    const sound = contentPath(key, { importid: 12, expires: now + 60 }, 'sco one/index.html');
    const opened = await check(sound);
    expect(opened.statusCode).toBeUndefined();
    expect(opened.uri).toBe('/content/12/sco%20one/index.html');
    expect(opened.cookies).toEqual({});
    // Changed import, expired, other key, traversal, no key in the store: refused.
    expect((await check(sound.replace('/c/12/', '/c/13/'))).statusCode).toBe(403);
    expect((await check(contentPath(key, { importid: 12, expires: now - 1 }, 'a.js'))).statusCode).toBe(403);
    expect((await check(contentPath('other', { importid: 12, expires: now + 60 }, 'a.js'))).statusCode).toBe(403);
    expect((await check(`${sound.replace(/sco%20one\/index\.html$/, '')}..%2F..%2Fimports/x`)).statusCode).toBe(404);
    expect((await check('/imports/12/package.zip')).statusCode).toBe(404);
    expect((await tokenCheck(undefined)(sound)).statusCode).toBe(403);
  });

  it('answers the runtime host page naming the site, within the function size limit', () => {
    const code = runtimeHostFunctionCode('https://training.example.com');
    expect(Buffer.byteLength(code)).toBeLessThan(10 * 1024);
    expect(Buffer.byteLength(contentTokenFunctionCode())).toBeLessThan(10 * 1024);
    const answer = new Function(`${code}\nreturn handler;`)()({ request: { method: 'GET', uri: RUNTIME_HOST_PATH } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['x-content-type-options'].value).toBe('nosniff');
    expect(answer.body.data).toContain('data-site="https://training.example.com"');
  });
});
