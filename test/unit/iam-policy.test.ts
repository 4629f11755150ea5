/** The IAM evaluator and call mapping behind the IAM check of `npm run verify:deploy`. */
import { describe, expect, it } from 'vitest';
import { evaluate, type PolicyStatement } from '../../infra/verify/iam-policy.ts';
import { IamLedger, iamReport } from '../../infra/verify/iam-check.ts';
import { requiredPermissions, UnmappedCallError } from '../../infra/verify/sdk-actions.ts';

const ARN = { partition: 'aws', region: 'us-east-1', account: '000000000000' };
const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/stepwise';

// What grants.ts gives a read-only group: no Scan, table and its indexes.
const readOnly: PolicyStatement[] = [
  {
    Effect: 'Allow',
    Action: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    Resource: [TABLE, `${TABLE}/index/*`],
  },
  { Effect: 'Allow', Action: ['s3:GetObject*', 's3:List*'], Resource: ['arn:aws:s3:::media', 'arn:aws:s3:::media/*'] },
];

describe('IAM policy evaluation', () => {
  it('allows a granted action on a granted resource, index ARNs through the wildcard', () => {
    expect(evaluate(readOnly, { action: 'dynamodb:GetItem', resource: TABLE }).decision).toBe('allow');
    expect(evaluate(readOnly, { action: 'dynamodb:Query', resource: `${TABLE}/index/gsi1` }).decision).toBe('allow');
    expect(
      evaluate(readOnly, { action: 's3:GetObject', resource: 'arn:aws:s3:::media/originals/1.png' }).decision,
    ).toBe('allow');
  });

  it('denies what no statement grants: another action, another table, another bucket', () => {
    expect(evaluate(readOnly, { action: 'dynamodb:Scan', resource: TABLE }).decision).toBe('implicit-deny');
    expect(evaluate(readOnly, { action: 'dynamodb:PutItem', resource: TABLE }).decision).toBe('implicit-deny');
    expect(evaluate(readOnly, { action: 'dynamodb:GetItem', resource: `${TABLE}-other` }).decision).toBe(
      'implicit-deny',
    );
    expect(evaluate(readOnly, { action: 's3:GetObject', resource: 'arn:aws:s3:::media-private/x' }).decision).toBe(
      'implicit-deny',
    );
  });

  it('matches actions case-insensitively, resources case-sensitively', () => {
    expect(evaluate(readOnly, { action: 'DynamoDB:getitem', resource: TABLE }).decision).toBe('allow');
    expect(evaluate(readOnly, { action: 'dynamodb:GetItem', resource: TABLE.toUpperCase() }).decision).toBe(
      'implicit-deny',
    );
  });

  it('lets an explicit Deny with a holding condition win over an Allow', () => {
    const withBucketPolicy: PolicyStatement[] = [
      ...readOnly,
      {
        Effect: 'Deny',
        Action: 's3:*',
        Resource: ['arn:aws:s3:::media', 'arn:aws:s3:::media/*'],
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
      {
        Effect: 'Deny',
        Action: 's3:*',
        Resource: 'arn:aws:s3:::media/*',
        Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } },
      },
    ];
    const request = { action: 's3:GetObject', resource: 'arn:aws:s3:::media/a' };
    expect(
      evaluate(withBucketPolicy, { ...request, context: { 'aws:SecureTransport': 'true', 's3:TlsVersion': '1.3' } })
        .decision,
    ).toBe('allow');
    expect(
      evaluate(withBucketPolicy, { ...request, context: { 'aws:SecureTransport': 'false', 's3:TlsVersion': '1.3' } })
        .decision,
    ).toBe('explicit-deny');
    expect(
      evaluate(withBucketPolicy, { ...request, context: { 'aws:SecureTransport': 'true', 's3:TlsVersion': '1.1' } })
        .decision,
    ).toBe('explicit-deny');
  });

  it('evaluates String conditions, IfExists and NotAction', () => {
    const statements: PolicyStatement[] = [
      {
        Effect: 'Allow',
        Action: 'ses:SendEmail',
        Resource: '*',
        Condition: { StringLike: { 'ses:FromAddress': '*@example.com' } },
      },
      {
        Effect: 'Allow',
        NotAction: ['iam:*', 'ses:*'],
        Resource: '*',
        Condition: { StringEqualsIfExists: { 'aws:RequestedRegion': 'us-east-1' } },
      },
    ];
    expect(
      evaluate(statements, {
        action: 'ses:SendEmail',
        resource: 'x',
        context: { 'ses:FromAddress': 'no-reply@example.com' },
      }).decision,
    ).toBe('allow');
    expect(
      evaluate(statements, { action: 'ses:SendEmail', resource: 'x', context: { 'ses:FromAddress': 'x@evil.test' } })
        .decision,
    ).toBe('implicit-deny');
    expect(evaluate(statements, { action: 'ses:SendEmail', resource: 'x' }).decision).toBe('implicit-deny');
    expect(evaluate(statements, { action: 'sqs:SendMessage', resource: 'q' }).decision).toBe('allow');
    expect(
      evaluate(statements, {
        action: 'sqs:SendMessage',
        resource: 'q',
        context: { 'aws:RequestedRegion': 'eu-west-1' },
      }).decision,
    ).toBe('implicit-deny');
    expect(evaluate(statements, { action: 'iam:PassRole', resource: 'r' }).decision).toBe('implicit-deny');
  });
});

describe('SDK call -> IAM action and resource', () => {
  it('authorizes a transaction item by item with the action of each kind', () => {
    const permissions = requiredPermissions(
      'DynamoDBClient',
      'TransactWriteItemsCommand',
      {
        TransactItems: [
          { Put: { TableName: 'stepwise' } },
          { Update: { TableName: 'stepwise' } },
          { Delete: { TableName: 'stepwise' } },
          { ConditionCheck: { TableName: 'stepwise' } },
        ],
      },
      ARN,
    );
    expect(permissions.map((permission) => permission.action)).toEqual([
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
    ]);
    expect(new Set(permissions.map((permission) => permission.resource))).toEqual(new Set([TABLE]));
  });

  it('maps index queries, object reads and executions to their ARNs', () => {
    expect(
      requiredPermissions('DynamoDBClient', 'QueryCommand', { TableName: 'stepwise', IndexName: 'gsi1' }, ARN),
    ).toEqual([{ action: 'dynamodb:Query', resource: `${TABLE}/index/gsi1` }]);
    expect(requiredPermissions('S3Client', 'HeadObjectCommand', { Bucket: 'media', Key: 'a/b.png' }, ARN)).toEqual([
      { action: 's3:GetObject', resource: 'arn:aws:s3:::media/a/b.png' },
    ]);
    // A listing carries its prefix as the s3:prefix condition key.
    expect(requiredPermissions('S3Client', 'ListObjectsV2Command', { Bucket: 'media', Prefix: 'a/' }, ARN)).toEqual([
      { action: 's3:ListBucket', resource: 'arn:aws:s3:::media', context: { 's3:prefix': 'a/' } },
    ]);
    expect(requiredPermissions('LambdaClient', 'InvokeCommand', { FunctionName: 'Stepwise-Api-users' }, ARN)).toEqual([
      {
        action: 'lambda:InvokeFunction',
        resource: 'arn:aws:lambda:us-east-1:000000000000:function:Stepwise-Api-users',
      },
    ]);
  });

  it('refuses a call it has no mapping for', () => {
    expect(() => requiredPermissions('S3Client', 'PutBucketPolicyCommand', { Bucket: 'media' }, ARN)).toThrow(
      UnmappedCallError,
    );
  });
});

describe('IAM ledger', () => {
  it('records a denied call with function, action and resource, and reports unexercised grants', () => {
    const ledger = new IamLedger(new Map());
    ledger.register({ id: 'fn', description: 'Stepwise tags endpoints', statements: readOnly });
    expect(ledger.authorize('fn', { action: 'dynamodb:GetItem', resource: TABLE })).toBe(true);
    expect(ledger.authorize('fn', { action: 'dynamodb:Scan', resource: TABLE })).toBe(false);
    const report = ledger.report();
    expect(report.ok).toBe(false);
    expect(report.text).toContain(`IAM DENIED  Stepwise tags endpoints: dynamodb:Scan on ${TABLE} (implicit-deny)`);
    expect(report.text).toContain('IAM unexercised  Stepwise tags endpoints:');
    // GetItem on the table was used; the rest of the grant was not.
    expect(report.text).toContain(`    ${TABLE}: dynamodb:Query, dynamodb:BatchGetItem\n`);
    expect(report.text).toContain(`    ${TABLE}/index/*: dynamodb:GetItem, dynamodb:Query, dynamodb:BatchGetItem\n`);
  });

  it('fails on a grant no command in the bundle can use; a reachable unexercised grant only reports', () => {
    const ledger = new IamLedger(new Map());
    ledger.register({
      id: 'fn',
      description: 'Stepwise tags endpoints',
      statements: readOnly,
      reachable: new Set(['dynamodb:GetItem', 'dynamodb:Query', 's3:GetObject']),
    });
    expect(ledger.authorize('fn', { action: 'dynamodb:GetItem', resource: TABLE })).toBe(true);
    const report = ledger.report();
    expect(report.ok).toBe(false);
    // BatchGetItem: no BatchGetItemCommand in the bundle; s3:List*: no listing command.
    expect(report.text).toContain(`IAM UNREACHABLE  Stepwise tags endpoints:\n    ${TABLE}: dynamodb:BatchGetItem\n`);
    expect(report.text).toContain('arn:aws:s3:::media: s3:List*');
    const unexercised = report.text.slice(report.text.indexOf('IAM unexercised  Stepwise tags endpoints:'));
    expect(unexercised).toContain(`    ${TABLE}: dynamodb:Query\n`);
    expect(unexercised).not.toContain('BatchGetItem');
  });

  it('checks a listing against an s3:prefix condition', () => {
    const ledger = new IamLedger(new Map());
    ledger.register({
      id: 'task',
      description: 'Stepwise module import step ExtractPackage',
      statements: [
        {
          Effect: 'Allow',
          Action: 's3:ListBucket',
          Resource: 'arn:aws:s3:::modules',
          Condition: { StringLike: { 's3:prefix': ['content/*'] } },
        },
      ],
    });
    const listing = (prefix: string) =>
      requiredPermissions('S3Client', 'ListObjectsV2Command', { Bucket: 'modules', Prefix: prefix }, ARN)[0];
    expect(ledger.authorize('task', listing('content/7/'))).toBe(true);
    expect(ledger.authorize('task', listing('imports/7/'))).toBe(false);
  });
});

describe('IAM report over several stacks', () => {
  // Tests start stacks of their own (the site transfer runs two): each loads every bundle.
  const stackUsing = (...actions: string[]) => {
    const ledger = new IamLedger(new Map());
    ledger.register({ id: 'fn', description: 'Stepwise tags endpoints', statements: readOnly });
    for (const action of actions) ledger.authorize('fn', { action, resource: TABLE });
    return ledger.findings();
  };

  it('counts a grant exercised when any stack used it, and adds up denials', () => {
    const report = iamReport([stackUsing('dynamodb:GetItem'), stackUsing('dynamodb:Query', 'dynamodb:Scan')]);
    expect(report.ok).toBe(false);
    expect(report.text).toContain('1 denied call(s)');
    expect(report.text).toContain('over 2 stack(s)');
    expect(report.text).toContain(`    ${TABLE}: dynamodb:BatchGetItem\n`);
    expect(report.text).not.toContain(`${TABLE}: dynamodb:Query`);
  });

  it('is not ok when no stack reported', () => {
    expect(iamReport([]).ok).toBe(false);
    expect(iamReport([stackUsing('dynamodb:GetItem')]).ok).toBe(true);
  });
});
