/**
 * The site-wide entry (decision 187): one CloudFront distribution in front of the HTTP API, so
 * the API (`/api/2.0/...`) and the paths of the site outside it (pages, robots.txt; SCIM as it
 * arrives) answer at one origin, the one `stepwise:siteUrl` names. Images (`/igi/*`) come from
 * the media bucket itself, through origin access control (decisions 197, 198).
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
import { HttpOrigin, OriginGroup } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { IMAGE_MAX_AGE_SECONDS, MEDIA_DERIVED_PREFIX } from '../../../shared/storage/media-objects.ts';
import { privateBucketBehavior } from '../constructs/private-bucket-behavior.ts';
import type { SiteSettings } from '../site-settings.ts';

export interface SiteStackProps extends StackProps {
  settings: SiteSettings;
  httpApi: HttpApi;
  /** The stateful stack's media bucket: `/igi/<guid>.<size>` is its key `igi/<guid>.<size>`. */
  mediaBucket: IBucket;
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
      additionalBehaviors: { [`/${MEDIA_DERIVED_PREFIX}*`]: this.imagesBehavior(props.mediaBucket, apiOrigin) },
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

  /**
   * `/igi/*` straight from the media bucket: the path is the key (decision 197), no function
   * runs. The bucket is imported by name so that its policy stays in the stateful stack (the
   * statement granting this account's distributions `igi/*` is there, decision 198): a policy
   * naming this distribution would make the two stacks depend on each other. Cached one hour at
   * the edge and in the apps: what a deleted image may live on, without invalidations. A key the
   * bucket does not hold yet (a size of an image still processing: its URLs are given from the
   * upload answer on) falls over to the API's `GET /igi/{file}`, which makes it from the original
   * (decision 280); the bucket answers 403 for a missing key, since the distribution may not list it.
   */
  private imagesBehavior(mediaBucket: IBucket, apiOrigin: HttpOrigin): BehaviorOptions {
    return privateBucketBehavior(this, {
      bucket: mediaBucket,
      ids: { bucket: 'MediaBucket', cachePolicy: 'ImagesCachePolicy', headers: 'ImagesHeaders' },
      bucketPolicyGrant:
        'The media bucket policy (stateful stack) grants this account distributions GetObject on igi/*',
      origin: (bucketOrigin) =>
        new OriginGroup({ primaryOrigin: bucketOrigin, fallbackOrigin: apiOrigin, fallbackStatusCodes: [403, 404] }),
      maxAgeSeconds: IMAGE_MAX_AGE_SECONDS,
      cacheControl: 'public',
      // The guid and size are the whole key.
      cacheComment: 'Images by guid: immutable, kept one hour so that a deleted one leaves soon',
      // Videos' and documents' files share the path (decision 312): no browser sniffs them into a page.
      headersComment: 'Images: the same hour in the apps and browsers as at the edge',
      // JPEG, PNG and WebP are compressed already.
      compress: false,
    }).behavior;
  }
}
