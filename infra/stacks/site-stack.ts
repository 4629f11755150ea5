/**
 * The site-wide entry (decision 187): one CloudFront distribution in front of the HTTP API, so
 * the API (`/api/2.0/...`) and the paths of the site outside it (pages, robots.txt; images and
 * SCIM as they arrive) answer at one origin, the one `stepwise:siteUrl` names.
 */
import { Aws, CfnOutput, Duration, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { Construct } from 'constructs';
import type { SiteSettings } from '../site-settings.ts';

export interface SiteStackProps extends StackProps {
  settings: SiteSettings;
  httpApi: HttpApi;
}

export class SiteStack extends Stack {
  readonly distribution: Distribution;
  readonly settings: SiteSettings;

  constructor(scope: Construct, id: string, props: SiteStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.settings = settings;
    const apiOrigin = new HttpOrigin(Fn.join('.', [props.httpApi.apiId, 'execute-api', Aws.REGION, Aws.URL_SUFFIX]), {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      // API Gateway's own limit: a longer wait at the edge would only hold the viewer.
      readTimeout: Duration.seconds(30),
    });
    // Nothing is cached at the edge yet: API answers depend on the caller's token, and the
    // site paths that may be cached (images, public pages) get behaviours of their own.
    const toTheApi: BehaviorOptions = {
      origin: apiOrigin,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      // Every header but Host (API Gateway routes by its own host name), every cookie and query.
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: true,
    };
    const certificate = settings.siteCertificateArn
      ? Certificate.fromCertificateArn(this, 'SiteCertificate', settings.siteCertificateArn)
      : undefined;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${settings.siteName}: the site and its API`,
      defaultBehavior: toTheApi,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      ...(certificate
        ? {
            certificate,
            domainNames: settings.siteDomainNames,
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
    });
    new CfnOutput(this, 'SiteUrl', { value: `https://${this.distribution.distributionDomainName}` });
  }
}
