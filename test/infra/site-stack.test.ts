import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseSiteSettings } from '../../infra/cdk/site-settings.ts';
import { buildTestApp, resourcesOfType } from './support.ts';

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
