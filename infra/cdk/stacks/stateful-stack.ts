/**
 * Everything that holds data: the table, the media and modules buckets (plus the bucket their
 * access logs go to) and the alarm topic, whose e-mail subscription should outlive redeploys.
 * Nothing here is replaced or deleted by a stack update: RETAIN everywhere, deletion
 * protection on the table.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, type ITableV2, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Bucket, type BucketProps, HttpMethods } from 'aws-cdk-lib/aws-s3';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { INDEXES, KEY, TTL_ATTRIBUTE } from '../../../shared/db/table.ts';
import { MEDIA_DERIVED_PREFIX, MEDIA_PDF_PREFIX } from '../../../shared/storage/media-objects.ts';
import { MODULE_CONTENT_PREFIX } from '../../../shared/storage/module-objects.ts';
import { privateBucketBaseProps } from '../constructs/private-bucket-props.ts';
import { createSearchCollection, type SearchCollection } from '../search-collection.ts';
import type { SiteSettings } from '../site-settings.ts';

export interface StatefulStackProps extends StackProps {
  settings: SiteSettings;
}

const GLOBAL_INDEXES = Object.values(INDEXES);

export class StatefulStack extends Stack {
  readonly table: ITableV2;
  readonly mediaBucket: Bucket;
  readonly modulesBucket: Bucket;
  readonly accessLogBucket: Bucket;
  readonly alarmTopic: Topic;
  /** The key sealing identity providers' secrets (decision 240); read by the sso function only. */
  readonly secretsKey: ISecret;
  /** The OpenSearch Serverless collection of a site whose search engine is `opensearch` (decision 292). */
  readonly searchCollection?: SearchCollection;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.table = settings.tableName
      ? // A restored table is adopted by name; its PITR, TTL and deletion protection are set
        // by the restore runbook, because CloudFormation does not manage it.
        TableV2.fromTableAttributes(this, 'Table', {
          tableName: settings.tableName,
          globalIndexes: GLOBAL_INDEXES.map((index) => index.name),
        })
      : new TableV2(this, 'Table', {
          partitionKey: { name: KEY.pk, type: AttributeType.STRING },
          sortKey: { name: KEY.sk, type: AttributeType.STRING },
          globalSecondaryIndexes: GLOBAL_INDEXES.map((index) => ({
            indexName: index.name,
            partitionKey: { name: index.pk, type: AttributeType.STRING },
            sortKey: { name: index.sk, type: AttributeType.STRING },
          })),
          billing: Billing.onDemand(),
          pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
          deletionProtection: true,
          timeToLiveAttribute: TTL_ATTRIBUTE,
          // Feeds new outbox items to the event deliverer (events stack).
          dynamoStream: StreamViewType.NEW_IMAGE,
          removalPolicy: RemovalPolicy.RETAIN,
        });

    // Server access logs of the two data buckets. It cannot log to itself (a loop), so it is
    // the one bucket without access logs (acknowledged in nag-acknowledgements.ts).
    this.accessLogBucket = new Bucket(this, 'AccessLogBucket', {
      ...privateBucketProps(),
      lifecycleRules: [
        { id: 'expire-access-logs', expiration: Duration.days(365), noncurrentVersionExpiration: Duration.days(30) },
      ],
    });

    // Browsers upload straight to S3 with presigned POST and read through presigned GET: media
    // items, module packages (start/byUpload) and module content (the player).
    const browserCors = [
      {
        allowedMethods: [HttpMethods.POST, HttpMethods.GET, HttpMethods.HEAD],
        allowedOrigins: settings.corsOrigins,
        allowedHeaders: ['*'],
        exposedHeaders: ['ETag', 'Location'],
        maxAge: Duration.hours(1).toSeconds(),
      },
    ];
    const mediaProps = privateBucketProps();
    this.mediaBucket = new Bucket(this, 'MediaBucket', {
      ...mediaProps,
      ...accessLogs(this.accessLogBucket, 'media/'),
      cors: browserCors,
      lifecycleRules: [
        ...(mediaProps.lifecycleRules ?? []),
        // Oversized guide PDFs are answered by a 5-minute redirect; a copy kept longer serves no one.
        {
          id: 'expire-guide-pdfs',
          prefix: MEDIA_PDF_PREFIX,
          expiration: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
    });
    // The site entry (site stack) serves `/igi/*` from here through origin access control
    // (decisions 197, 198). Its distribution id cannot be named here without the two stacks
    // depending on each other, so the grant is to this account's distributions, and to `igi/`
    // alone: what `/igi/` holds is readable by its guid anyway; originals stay out of reach.
    allowDistributionReads(this.mediaBucket, MEDIA_DERIVED_PREFIX);

    this.modulesBucket = new Bucket(this, 'ModulesBucket', {
      ...privateBucketProps(),
      ...accessLogs(this.accessLogBucket, 'modules/'),
      cors: browserCors,
    });
    // The content origin (content stack, decision 318) reads extracted packages through origin
    // access control: `content/` alone, as for `/igi/` above; the uploaded zips and the search
    // index stay out of reach, and only a sound launch token (checked at the edge) gets through.
    allowDistributionReads(this.modulesBucket, MODULE_CONTENT_PREFIX);

    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      displayName: `${settings.stackPrefix} alarms`,
      enforceSSL: true,
    });
    // The enforce-SSL statement replaces the default topic policy, so CloudWatch alarms of this
    // account are allowed to publish explicitly.
    this.alarmTopic.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.alarmTopic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    if (settings.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(settings.alarmEmail));

    // Generated here, never seen by anyone: no value in the template, the environment or a log.
    // Rotated by the operator's re-sealing command (docs/operations.md), not by a rotation Lambda.
    this.secretsKey = settings.secretsKeyArn
      ? Secret.fromSecretCompleteArn(this, 'SecretsKey', settings.secretsKeyArn)
      : new Secret(this, 'SecretsKey', {
          description: `${settings.stackPrefix}: the key sealing identity providers' secrets (STEPWISE_SECRETS_KEY)`,
          generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
          removalPolicy: RemovalPolicy.RETAIN,
        });

    if (settings.searchEngine === 'opensearch') {
      this.searchCollection = createSearchCollection(this, settings.stackPrefix);
      new CfnOutput(this, 'SearchCollectionEndpoint', { value: this.searchCollection.endpoint });
    }

    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'SecretsKeyArn', { value: this.secretsKey.secretArn });
    new CfnOutput(this, 'MediaBucketName', { value: this.mediaBucket.bucketName });
    new CfnOutput(this, 'ModulesBucketName', { value: this.modulesBucket.bucketName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn });
  }
}

/**
 * Lets this account's CloudFront distributions read the objects under `prefix` (origin access
 * control); nothing else of the bucket.
 */
function allowDistributionReads(bucket: Bucket, prefix: string): void {
  const stack = Stack.of(bucket);
  bucket.addToResourcePolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      principals: [new ServicePrincipal('cloudfront.amazonaws.com')],
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects(`${prefix}*`)],
      conditions: {
        StringEquals: { 'AWS:SourceAccount': stack.account },
        ArnLike: { 'AWS:SourceArn': `arn:${stack.partition}:cloudfront::${stack.account}:distribution/*` },
      },
    }),
  );
}

/** Private, versioned, encrypted, TLS-only, never deleted with the stack. */
function privateBucketProps(): BucketProps {
  return {
    ...privateBucketBaseProps(),
    versioned: true,
    lifecycleRules: [
      // Versioning keeps overwritten and deleted objects for recovery, not forever.
      { id: 'expire-old-versions', noncurrentVersionExpiration: Duration.days(90) },
      { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(7) },
    ],
  };
}

function accessLogs(
  target: Bucket,
  prefix: string,
): Pick<BucketProps, 'serverAccessLogsBucket' | 'serverAccessLogsPrefix'> {
  return { serverAccessLogsBucket: target, serverAccessLogsPrefix: prefix };
}
