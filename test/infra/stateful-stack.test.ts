import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { INDEXES, KEY, TTL_ATTRIBUTE } from '../../shared/db/table.ts';
import { buildTestApp, resourcesOfType } from './support.ts';

let template: Template;
let stack: ReturnType<typeof buildTestApp>['stateful'];
beforeAll(() => {
  ({ stateful: stack } = buildTestApp({ context: { 'stepwise:corsOrigins': 'https://training.example.com' } }));
  template = Template.fromStack(stack);
});

describe('stateful stack: table', () => {
  it('is on-demand, with PITR, deletion protection, TTL, and retained on removal', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: KEY.pk, KeyType: 'HASH' },
          { AttributeName: KEY.sk, KeyType: 'RANGE' },
        ],
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
        Replicas: [
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
            DeletionProtectionEnabled: true,
          }),
        ],
      }),
    });
  });

  it('has the gsi1 and gsi2 indexes of shared/db/table.ts, every key a string', () => {
    const table = Object.values(resourcesOfType(template, 'AWS::DynamoDB::GlobalTable'))[0].Properties;
    expect(table.GlobalSecondaryIndexes).toEqual(
      Object.values(INDEXES).map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.pk, KeyType: 'HASH' },
          { AttributeName: index.sk, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    );
    for (const attribute of table.AttributeDefinitions) expect(attribute.AttributeType).toBe('S');
  });
});

describe('stateful stack: buckets', () => {
  it('are all versioned, encrypted, private and retained', () => {
    const buckets = resourcesOfType(template, 'AWS::S3::Bucket');
    expect(Object.keys(buckets)).toHaveLength(3);
    template.allResources('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        VersioningConfiguration: { Status: 'Enabled' },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      }),
    });
  });

  it('deny every request that does not use TLS', () => {
    const policies = Object.values(resourcesOfType(template, 'AWS::S3::BucketPolicy'));
    const buckets = Object.keys(resourcesOfType(template, 'AWS::S3::Bucket'));
    expect(policies.map((policy) => policy.Properties.Bucket.Ref).sort()).toEqual(buckets.sort());
    for (const policy of policies) {
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });

  it('send the data buckets server access logs to the access log bucket', () => {
    const logBucket = stack.getLogicalId(stack.accessLogBucket.node.defaultChild as never);
    for (const bucket of [stack.mediaBucket, stack.modulesBucket]) {
      const properties = resourcesOfType(template, 'AWS::S3::Bucket')[
        stack.getLogicalId(bucket.node.defaultChild as never)
      ].Properties;
      expect(properties.LoggingConfiguration.DestinationBucketName).toEqual({ Ref: logBucket });
    }
    const logPolicy = Object.values(resourcesOfType(template, 'AWS::S3::BucketPolicy')).find(
      (p) => p.Properties.Bucket.Ref === logBucket,
    );
    expect(logPolicy?.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'logging.s3.amazonaws.com' },
        Action: 's3:PutObject',
      }),
    );
  });

  it('let browsers of the configured origins upload media and module packages with presigned POST', () => {
    for (const bucket of [stack.mediaBucket, stack.modulesBucket]) {
      const resource = resourcesOfType(template, 'AWS::S3::Bucket')[
        stack.getLogicalId(bucket.node.defaultChild as never)
      ];
      expect(resource.Properties.CorsConfiguration.CorsRules).toEqual([
        expect.objectContaining({
          AllowedMethods: expect.arrayContaining(['POST', 'GET']),
          AllowedOrigins: ['https://training.example.com'],
        }),
      ]);
    }
  });
});

describe('stateful stack: alarm topic', () => {
  it('accepts CloudWatch alarms and enforces TLS', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
          }),
        ]),
      },
    });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('subscribes stepwise:alarmEmail when set', () => {
    const { stateful } = buildTestApp({ context: { 'stepwise:alarmEmail': 'ops@example.com' } });
    Template.fromStack(stateful).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });
});

describe('stateful stack: restored table', () => {
  it('adopts stepwise:tableName instead of creating a table, and the functions use it', () => {
    const { stateful, apiAreas } = buildTestApp({ context: { 'stepwise:tableName': 'stepwise-restored-20260101' } });
    Template.fromStack(stateful).resourceCountIs('AWS::DynamoDB::GlobalTable', 0);
    const apiTemplate = Template.fromStack(apiAreas[0]);
    apiTemplate.allResourcesProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ TABLE_NAME: 'stepwise-restored-20260101' }) },
    });
    // Grants name the restored table and its indexes, in the deploying account and region.
    const statements = Object.values(resourcesOfType(apiTemplate, 'AWS::IAM::Policy')).flatMap(
      (p) => p.Properties.PolicyDocument.Statement,
    );
    const tableResources = JSON.stringify(
      statements.filter((s) => String(s.Action).includes('dynamodb:')).map((s) => s.Resource),
    );
    expect(tableResources).toContain(':table/stepwise-restored-20260101');
    expect(tableResources).toContain(':table/stepwise-restored-20260101/index/*');
    expect(tableResources).not.toContain('ImportValue');
  });
});
