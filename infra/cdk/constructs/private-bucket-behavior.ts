/**
 * The one way a distribution serves files of a private bucket (the site's images, decision 197;
 * module content, decision 270): the stateful stack's bucket imported by name, so its policy stays
 * there (it grants this account's distributions GetObject on the prefix served: a policy naming
 * this distribution would make the two stacks depend on each other); origin access control; GET
 * and HEAD over HTTPS; cached by object key only (no query, header or cookie changes the bytes)
 * for `maxAgeSeconds` at the edge and, through `Cache-Control`, as long in the browser; never
 * sniffed.
 *
 * A function rather than a Construct of its own: the policies keep the ids they had in the
 * stack, so their logical ids (and the deployed resources) stay what they were.
 */
import { Annotations, Duration } from 'aws-cdk-lib';
import {
  AllowedMethods,
  type BehaviorOptions,
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  type FunctionAssociation,
  HeadersReferrerPolicy,
  type IOrigin,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';

export interface PrivateBucketBehaviorProps {
  /** The stateful stack's bucket. */
  bucket: IBucket;
  /** Ids in the stack of the bucket's import and of the two policies (their logical ids). */
  ids: { bucket: string; cachePolicy: string; headers: string };
  /** What the bucket's own policy grants the distribution (acknowledges CDK's warning that it cannot add it). */
  bucketPolicyGrant: string;
  maxAgeSeconds: number;
  /** `public`: shared caches may keep the file; `private`: the browser only. */
  cacheControl: 'public' | 'private';
  cacheComment: string;
  headersComment: string;
  /** Text worth compressing at the edge (cached per Accept-Encoding); false for images. */
  compress: boolean;
  /** Referrer-Policy: no-referrer on every answer. */
  noReferrer?: boolean;
  /** The behaviour's origin made from the bucket's (an origin group with a fallback); the bucket's by default. */
  origin?: (bucketOrigin: IOrigin) => IOrigin;
  functionAssociations?: FunctionAssociation[];
}

/** The behaviour, and the bucket's origin for other behaviours of the distribution to share. */
export function privateBucketBehavior(
  scope: Construct,
  props: PrivateBucketBehaviorProps,
): { behavior: BehaviorOptions; bucketOrigin: IOrigin } {
  const bucket = Bucket.fromBucketAttributes(scope, props.ids.bucket, {
    bucketName: props.bucket.bucketName,
    bucketRegionalDomainName: props.bucket.bucketRegionalDomainName,
  });
  Annotations.of(scope).acknowledgeWarning(
    '@aws-cdk/aws-cloudfront-origins:updateImportedBucketPolicyOac',
    props.bucketPolicyGrant,
  );
  const bucketOrigin = S3BucketOrigin.withOriginAccessControl(bucket);
  const maxAge = Duration.seconds(props.maxAgeSeconds);
  const behavior: BehaviorOptions = {
    origin: props.origin ? props.origin(bucketOrigin) : bucketOrigin,
    allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
    viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
    cachePolicy: new CachePolicy(scope, props.ids.cachePolicy, {
      comment: props.cacheComment,
      defaultTtl: maxAge,
      maxTtl: maxAge,
      minTtl: Duration.seconds(0),
      queryStringBehavior: CacheQueryStringBehavior.none(),
      headerBehavior: CacheHeaderBehavior.none(),
      cookieBehavior: CacheCookieBehavior.none(),
      enableAcceptEncodingGzip: props.compress,
      enableAcceptEncodingBrotli: props.compress,
    }),
    responseHeadersPolicy: new ResponseHeadersPolicy(scope, props.ids.headers, {
      comment: props.headersComment,
      securityHeadersBehavior: {
        contentTypeOptions: { override: true },
        ...(props.noReferrer
          ? { referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true } }
          : {}),
      },
      customHeadersBehavior: {
        customHeaders: [
          {
            header: 'Cache-Control',
            value: `${props.cacheControl}, max-age=${props.maxAgeSeconds}`,
            override: true,
          },
        ],
      },
    }),
    ...(props.functionAssociations ? { functionAssociations: props.functionAssociations } : {}),
    compress: props.compress,
  };
  return { behavior, bucketOrigin };
}
