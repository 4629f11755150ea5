import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseSiteSettings } from '../../infra/site-settings.ts';
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
    expect(config.Origins).toHaveLength(1);
    const [origin] = config.Origins;
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
    expect(config.CacheBehaviors).toBeUndefined();
    expect(config.Aliases).toBeUndefined();
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
