import { createHash, createHmac } from 'node:crypto';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { CONTENT_KEY_NAME, contentTokenFunctionCode, runtimeHostFunctionCode } from '../../infra/cdk/content-edge.ts';
import { parseSiteSettings } from '../../infra/cdk/site-settings.ts';
import { contentPath } from '../../shared/domain/content-token.ts';
import { RUNTIME_HOST_PATH } from '../../shared/domain/scorm-runtime-host.ts';
import { actionsOf, buildTestApp, functionStatements, resourcesOfType } from './support.ts';

/** AWS managed policies, by their fixed ids. */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

function distributionConfig(context: Record<string, unknown> = {}) {
  const template = Template.fromStack(buildTestApp({ context }).site);
  const distributions = Object.values(resourcesOfType(template, 'AWS::CloudFront::Distribution'));
  expect(distributions).toHaveLength(1);
  return distributions[0].Properties.DistributionConfig;
}

describe('site stack: one entry for the site and its API', () => {
  it('sends every path to the HTTP API over HTTPS, uncached, with the viewer headers but Host', () => {
    const config = distributionConfig();
    expect(config.Origins).toHaveLength(2);
    const origin = config.Origins.find((one: { CustomOriginConfig?: unknown }) => one.CustomOriginConfig);
    expect(JSON.stringify(origin.DomainName)).toMatch(/Stepwise-Api:ExportsOutputRefHttpApi/);
    expect(JSON.stringify(origin.DomainName)).toContain('execute-api');
    expect(origin.CustomOriginConfig).toMatchObject({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
      OriginReadTimeout: 30,
    });
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
    });
    expect(config.CacheBehaviors.map((behavior: { PathPattern: string }) => behavior.PathPattern)).toEqual(['/igi/*']);
    expect(config.Aliases).toBeUndefined();
  });

  it('serves /igi/* from the media bucket through origin access control (else the API), cached one hour, GET and HEAD only', () => {
    const app = buildTestApp();
    const template = Template.fromStack(app.site);
    const config = distributionConfig();
    const [images] = config.CacheBehaviors;
    // An origin group: the bucket first; a key it does not hold yet (403, 404) falls over to the
    // API's GET /igi/{file}, which makes a size not processed yet from the original (decision 280).
    const group = config.OriginGroups.Items.find((one: { Id: string }) => one.Id === images.TargetOriginId);
    expect(group.FailoverCriteria.StatusCodes).toEqual({ Items: [403, 404], Quantity: 2 });
    const [primaryId, fallbackId] = group.Members.Items.map((member: { OriginId: string }) => member.OriginId);
    const fallback = config.Origins.find((one: { Id: string }) => one.Id === fallbackId);
    expect(fallback.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only' });
    expect(JSON.stringify(fallback.DomainName)).toContain('execute-api');
    const origin = config.Origins.find((one: { Id: string }) => one.Id === primaryId);
    // The media bucket of the stateful stack, by its regional name; signed requests (OAC), no OAI.
    expect(JSON.stringify(origin.DomainName)).toMatch(
      /Stepwise-Stateful:ExportsOutputFnGetAttMediaBucket.*RegionalDomainName/,
    );
    expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(origin.OriginAccessControlId).toBeDefined();
    const controls = Object.values(resourcesOfType(template, 'AWS::CloudFront::OriginAccessControl'));
    expect(controls).toHaveLength(1);
    expect(controls[0].Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    expect(images).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
      Compress: false,
    });
    const [policy] = Object.values(resourcesOfType(template, 'AWS::CloudFront::CachePolicy'));
    expect(policy.Properties.CachePolicyConfig).toMatchObject({
      DefaultTTL: 3600,
      MaxTTL: 3600,
      MinTTL: 0,
      ParametersInCacheKeyAndForwardedToOrigin: {
        QueryStringsConfig: { QueryStringBehavior: 'none' },
        HeadersConfig: { HeaderBehavior: 'none' },
        CookiesConfig: { CookieBehavior: 'none' },
      },
    });
    const [headers] = Object.values(resourcesOfType(template, 'AWS::CloudFront::ResponseHeadersPolicy'));
    expect(headers.Properties.ResponseHeadersPolicyConfig.CustomHeadersConfig.Items).toEqual([
      { Header: 'Cache-Control', Value: 'public, max-age=3600', Override: true },
    ]);
    // Videos' and documents' files are under /igi/ too (decision 312): never sniffed into a page.
    expect(headers.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig).toEqual({
      ContentTypeOptions: { Override: true },
    });
  });

  it("lets the account's distributions read igi/* of the media bucket, and nothing else of it", () => {
    const template = Template.fromStack(buildTestApp().stateful);
    const policies = Object.values(resourcesOfType(template, 'AWS::S3::BucketPolicy')).filter((policy) =>
      JSON.stringify(policy.Properties.Bucket).includes('MediaBucket'),
    );
    expect(policies).toHaveLength(1);
    const statements = policies[0].Properties.PolicyDocument.Statement.filter(
      (statement: { Principal?: { Service?: string } }) => statement.Principal?.Service === 'cloudfront.amazonaws.com',
    );
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Effect: 'Allow', Action: 's3:GetObject' });
    expect(JSON.stringify(statements[0].Resource)).toContain('/igi/*');
    expect(JSON.stringify(statements[0].Condition.ArnLike['AWS:SourceArn'])).toContain(':distribution/*');
  });

  it("answers at the site's own domain with TLS 1.2 at least when given one and its certificate", () => {
    const certificate = 'arn:aws:acm:us-east-1:123456789012:certificate/0f0e0d0c-1234-4abc-9def-001122334455';
    const config = distributionConfig({
      'stepwise:siteDomainNames': 'training.example.com',
      'stepwise:siteCertificateArn': certificate,
    });
    expect(config.Aliases).toEqual(['training.example.com']);
    expect(config.ViewerCertificate).toMatchObject({
      AcmCertificateArn: certificate,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
  });

  it('refuses a domain without its certificate, and a certificate outside us-east-1', () => {
    expect(() => parseSiteSettings({ siteDomainNames: 'training.example.com' })).toThrow(/go together/);
    expect(() =>
      parseSiteSettings({
        siteDomainNames: 'training.example.com',
        siteCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
      }),
    ).toThrow(/us-east-1/);
  });
});

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

describe('content origin stack (decision 318): module content on a distribution of its own', () => {
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

  it('gives the signing functions only the content URL, the signing key’s ARN and GetSecretValue on it (decision 346)', () => {
    const withKey: string[] = [];
    const withGrant: string[] = [];
    for (const stack of assembly.stacks) {
      // The key's value is in no function's configuration, in no stack.
      expect(JSON.stringify(stack.template)).not.toContain('{{resolve:secretsmanager:');
      if (!stack.stackName.includes('-Api-')) continue;
      const areaTemplate = Template.fromJSON(stack.template);
      for (const [id, fn] of Object.entries(resourcesOfType(areaTemplate, 'AWS::Lambda::Function'))) {
        const variables = fn.Properties.Environment?.Variables ?? {};
        expect(variables.STEPWISE_CONTENT_SIGNING_KEY).toBeUndefined();
        const secretStatements = functionStatements(areaTemplate, id).filter((statement) =>
          actionsOf([statement]).some((action) => action.startsWith('secretsmanager:')),
        );
        if (secretStatements.some((statement) => JSON.stringify(statement.Resource).includes('ContentSigningKey')))
          withGrant.push(fn.Properties.Description);
        if (!variables.STEPWISE_CONTENT_SIGNING_KEY_ARN) continue;
        withKey.push(fn.Properties.Description);
        expect(JSON.stringify(variables.STEPWISE_CONTENT_SIGNING_KEY_ARN)).toMatch(/ContentSigningKey/);
        expect(JSON.stringify(variables.STEPWISE_CONTENT_URL)).toContain('DomainName');
        // GetSecretValue alone, on that secret alone.
        expect(actionsOf(secretStatements)).toEqual(['secretsmanager:GetSecretValue']);
        expect(secretStatements.map((statement) => statement.Resource)).toEqual([
          variables.STEPWISE_CONTENT_SIGNING_KEY_ARN,
        ]);
      }
    }
    const signers = ['Stepwise modules endpoints', 'Stepwise pages endpoints', 'Stepwise xapi endpoints'];
    expect(withKey.sort()).toEqual(signers);
    expect(withGrant.sort()).toEqual(signers);
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
