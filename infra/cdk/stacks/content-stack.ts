/**
 * The content origin (decisions 270, 318): a CloudFront distribution of its own (another site
 * than the site's, so package JavaScript never runs where the site's session lives) in front of
 * the modules bucket's extracted packages, through origin access control. A CloudFront Function
 * checks each path's launch token against the content signing key in a KeyValueStore and rewrites
 * the path to the object key; another answers the SCORM runtime's host page. The signing key is
 * generated in Secrets Manager; the API functions that sign get it and this distribution's URL.
 */
import { Aws, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  KeyValueStore,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { RUNTIME_HOST_PATH } from '../../../shared/domain/scorm-runtime-host.ts';
import { CONTENT_KEY_NAME, contentTokenFunctionCode, runtimeHostFunctionCode } from '../content-edge.ts';
import { privateBucketBehavior } from '../constructs/private-bucket-behavior.ts';
import type { SiteSettings } from '../site-settings.ts';

/** How long a package file is kept at the edge and in the browser (as the local server says). */
export const CONTENT_MAX_AGE_SECONDS = 300;

export interface ContentStackProps extends StackProps {
  settings: SiteSettings;
  /** The stateful stack's modules bucket: `/c/<importid>/<token>/<path>` reads `content/<importid>/<path>`. */
  modulesBucket: IBucket;
}

export class ContentStack extends Stack {
  readonly distribution: Distribution;
  readonly signingKey: ISecret;
  readonly keyValueStore: KeyValueStore;
  readonly settings: SiteSettings;
  /** The content origin's URL: STEPWISE_CONTENT_URL of the signing functions. */
  readonly contentUrl: string;

  constructor(scope: Construct, id: string, props: ContentStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.settings = settings;

    // Generated here, never in the template: the signing functions read it by ARN (decision 346), and
    // the operator copies it into the KeyValueStore once (decision 318).
    this.signingKey = new Secret(this, 'ContentSigningKey', {
      description: `${settings.stackPrefix}: the key sealing module content launch tokens`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    this.keyValueStore = new KeyValueStore(this, 'ContentKeys', {
      comment: `${settings.stackPrefix}: the content signing key for the token check at the edge`,
    });

    const tokenCheck = new EdgeFunction(this, 'ContentTokenCheck', {
      comment: 'Checks the launch token of /c/<importid>/<exp>.<hmac>/<path>, rewrites it to the object key',
      code: FunctionCode.fromInline(contentTokenFunctionCode()),
      runtime: FunctionRuntime.JS_2_0,
      keyValueStore: this.keyValueStore,
    });
    // Cached by object key (the rewritten path): the token was checked before the cache.
    const { behavior: files, bucketOrigin: origin } = privateBucketBehavior(this, {
      bucket: props.modulesBucket,
      ids: { bucket: 'ModulesBucket', cachePolicy: 'ContentCachePolicy', headers: 'ContentHeaders' },
      bucketPolicyGrant:
        'The modules bucket policy (stateful stack) grants this account distributions GetObject on content/*',
      maxAgeSeconds: CONTENT_MAX_AGE_SECONDS,
      cacheControl: 'private',
      cacheComment: 'Module content by object key: no query, header or cookie changes the bytes',
      headersComment: 'Module content: never sniffed, no referrer, five minutes in the browser',
      compress: true,
      noReferrer: true,
      functionAssociations: [{ function: tokenCheck, eventType: FunctionEventType.VIEWER_REQUEST }],
    });
    const hostPage = new EdgeFunction(this, 'RuntimeHostPage', {
      comment: 'Answers the SCORM runtime host page (decision 306)',
      code: FunctionCode.fromInline(runtimeHostFunctionCode(settings.siteUrl)),
      runtime: FunctionRuntime.JS_2_0,
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${settings.siteName}: module content, an origin of its own`,
      defaultBehavior: files,
      additionalBehaviors: {
        [RUNTIME_HOST_PATH]: {
          origin,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          functionAssociations: [{ function: hostPage, eventType: FunctionEventType.VIEWER_REQUEST }],
        },
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    this.contentUrl = `https://${this.distribution.distributionDomainName}`;
    new CfnOutput(this, 'ContentUrl', { value: this.contentUrl });
    new CfnOutput(this, 'ContentSigningKeyArn', { value: this.signingKey.secretArn });
    new CfnOutput(this, 'ContentKeyValueStoreArn', { value: this.keyValueStore.keyValueStoreArn });
    // The one deploy-time step CDK cannot do without a custom resource (decision 318).
    new CfnOutput(this, 'FillContentKeyCommand', {
      description: 'Run once after the first deploy (and after rotating the key): copies the key to the edge',
      value: fillKeyCommand(this.keyValueStore.keyValueStoreArn, this.signingKey.secretArn),
    });
  }
}

/** The shell command copying the signing key from Secrets Manager into the KeyValueStore. */
export function fillKeyCommand(kvsArn: string, secretArn: string): string {
  return [
    `aws cloudfront-keyvaluestore put-key --kvs-arn ${kvsArn} --key ${CONTENT_KEY_NAME}`,
    `--value "$(aws secretsmanager get-secret-value --region ${Aws.REGION} --secret-id ${secretArn}`,
    '--query SecretString --output text)"',
    `--if-match "$(aws cloudfront-keyvaluestore describe-key-value-store --kvs-arn ${kvsArn}`,
    '--query ETag --output text)"',
  ].join(' ');
}
