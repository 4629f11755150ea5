/**
 * What IAM authorizes for one AWS SDK call: the action(s) and resource ARN(s) the service
 * checks, from the client, the command name and its input. A call this table does not know is
 * an error of the verification, not a pass: a new kind of call must be mapped before it ships.
 */

export interface ArnContext {
  partition: string;
  region: string;
  account: string;
}

export interface RequiredPermission {
  action: string;
  resource: string;
  /** Condition keys this request sets (s3:prefix of a listing). */
  context?: Record<string, string>;
}

type Input = Record<string, any>;
type Mapper = (input: Input, arn: ArnContext) => RequiredPermission[];

const tableArn = (name: string, arn: ArnContext) =>
  `arn:${arn.partition}:dynamodb:${arn.region}:${arn.account}:table/${name}`;
const indexArn = (table: string, index: string, arn: ArnContext) => `${tableArn(table, arn)}/index/${index}`;
const bucketArn = (bucket: string, arn: ArnContext) => `arn:${arn.partition}:s3:::${bucket}`;
const objectArn = (bucket: string, key: string, arn: ArnContext) => `${bucketArn(bucket, arn)}/${key}`;

/** One table action on the table the input names. */
const onTable =
  (action: string): Mapper =>
  (input, arn) => [{ action: `dynamodb:${action}`, resource: tableArn(input.TableName, arn) }];

/** Transactions are authorized item by item, each with the action of its kind. */
const TRANSACT_WRITE_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

const DYNAMODB: Record<string, Mapper> = {
  GetItemCommand: onTable('GetItem'),
  PutItemCommand: onTable('PutItem'),
  UpdateItemCommand: onTable('UpdateItem'),
  DeleteItemCommand: onTable('DeleteItem'),
  DescribeTableCommand: onTable('DescribeTable'),
  ScanCommand: (input, arn) => [
    {
      action: 'dynamodb:Scan',
      resource: input.IndexName ? indexArn(input.TableName, input.IndexName, arn) : tableArn(input.TableName, arn),
    },
  ],
  QueryCommand: (input, arn) => [
    {
      action: 'dynamodb:Query',
      resource: input.IndexName ? indexArn(input.TableName, input.IndexName, arn) : tableArn(input.TableName, arn),
    },
  ],
  BatchGetItemCommand: (input, arn) =>
    Object.keys(input.RequestItems ?? {}).map((table) => ({
      action: 'dynamodb:BatchGetItem',
      resource: tableArn(table, arn),
    })),
  BatchWriteItemCommand: (input, arn) =>
    Object.keys(input.RequestItems ?? {}).map((table) => ({
      action: 'dynamodb:BatchWriteItem',
      resource: tableArn(table, arn),
    })),
  TransactGetItemsCommand: (input, arn) =>
    (input.TransactItems ?? []).map((item: Input) => ({
      action: 'dynamodb:GetItem',
      resource: tableArn(item.Get.TableName, arn),
    })),
  TransactWriteItemsCommand: (input, arn) =>
    (input.TransactItems ?? []).map((item: Input) => {
      const [kind, operation] = Object.entries(item).find(([, value]) => value !== undefined)!;
      const action = TRANSACT_WRITE_ACTIONS[kind];
      if (!action) throw new Error(`TransactWriteItems: unknown item kind ${kind}`);
      return { action: `dynamodb:${action}`, resource: tableArn((operation as Input).TableName, arn) };
    }),
};

const onObject =
  (...actions: string[]): Mapper =>
  (input, arn) =>
    actions.map((action) => ({ action: `s3:${action}`, resource: objectArn(input.Bucket, input.Key, arn) }));
const onBucket =
  (action: string): Mapper =>
  (input, arn) => [{ action: `s3:${action}`, resource: bucketArn(input.Bucket, arn) }];

/** A listing is authorized on the bucket, with the listed prefix as s3:prefix (absent: none). */
const listing: Mapper = (input, arn) => [
  {
    action: 's3:ListBucket',
    resource: bucketArn(input.Bucket, arn),
    ...(input.Prefix !== undefined ? { context: { 's3:prefix': String(input.Prefix) } } : {}),
  },
];

const S3: Record<string, Mapper> = {
  GetObjectCommand: onObject('GetObject'),
  // HEAD is authorized as a GET of the object.
  HeadObjectCommand: onObject('GetObject'),
  PutObjectCommand: onObject('PutObject'),
  // The parts of a multipart upload are authorized as s3:PutObject.
  CreateMultipartUploadCommand: onObject('PutObject'),
  UploadPartCommand: onObject('PutObject'),
  CompleteMultipartUploadCommand: onObject('PutObject'),
  AbortMultipartUploadCommand: onObject('AbortMultipartUpload'),
  DeleteObjectCommand: onObject('DeleteObject'),
  GetObjectTaggingCommand: onObject('GetObjectTagging'),
  PutObjectTaggingCommand: onObject('PutObjectTagging'),
  DeleteObjectsCommand: (input, arn) =>
    (input.Delete?.Objects ?? []).map((object: Input) => ({
      action: 's3:DeleteObject',
      resource: objectArn(input.Bucket, object.Key, arn),
    })),
  CopyObjectCommand: (input, arn) => {
    const source = decodeURIComponent(String(input.CopySource).replace(/^\//, ''));
    const slash = source.indexOf('/');
    return [
      { action: 's3:GetObject', resource: objectArn(source.slice(0, slash), source.slice(slash + 1), arn) },
      { action: 's3:PutObject', resource: objectArn(input.Bucket, input.Key, arn) },
    ];
  },
  ListObjectsV2Command: listing,
  ListObjectsCommand: listing,
  HeadBucketCommand: onBucket('ListBucket'),
  ListMultipartUploadsCommand: onBucket('ListBucketMultipartUploads'),
};

const SFN: Record<string, Mapper> = {
  StartExecutionCommand: (input) => [{ action: 'states:StartExecution', resource: input.stateMachineArn }],
  DescribeExecutionCommand: (input) => [{ action: 'states:DescribeExecution', resource: input.executionArn }],
  StopExecutionCommand: (input) => [{ action: 'states:StopExecution', resource: input.executionArn }],
  ListExecutionsCommand: (input) => [{ action: 'states:ListExecutions', resource: input.stateMachineArn }],
};

const LAMBDA: Record<string, Mapper> = {
  InvokeCommand: (input, arn) => {
    const name = String(input.FunctionName);
    const resource = name.startsWith('arn:')
      ? name
      : `arn:${arn.partition}:lambda:${arn.region}:${arn.account}:function:${name}`;
    return [{ action: 'lambda:InvokeFunction', resource }];
  },
};

/**
 * SES checks SendEmail against the identity that sends: the address, or its domain when the
 * domain is the verified identity. The caller needs either; `sesIdentityAlternatives` lets the
 * checker accept one of the two.
 */
const SESV2: Record<string, Mapper> = {
  SendEmailCommand: (input, arn) => {
    const from = String(input.FromEmailAddress).replace(/^.*</, '').replace(/>.*$/, '');
    return [
      { action: 'ses:SendEmail', resource: `arn:${arn.partition}:ses:${arn.region}:${arn.account}:identity/${from}` },
    ];
  },
};

/** PutEvents is authorized on each entry's bus (by name or ARN; no name: the default bus). */
const EVENTBRIDGE: Record<string, Mapper> = {
  PutEventsCommand: (input, arn) =>
    (input.Entries ?? []).map((entry: Input) => {
      const bus = String(entry.EventBusName ?? 'default');
      return {
        action: 'events:PutEvents',
        resource: bus.startsWith('arn:')
          ? bus
          : `arn:${arn.partition}:events:${arn.region}:${arn.account}:event-bus/${bus}`,
      };
    }),
};

/** GetSecretValue is authorized on the secret (its full ARN, as the functions name it). */
const SECRETS_MANAGER: Record<string, Mapper> = {
  GetSecretValueCommand: (input) => [{ action: 'secretsmanager:GetSecretValue', resource: String(input.SecretId) }],
};

const BY_CLIENT: Record<string, Record<string, Mapper>> = {
  DynamoDBClient: DYNAMODB,
  S3Client: S3,
  SFNClient: SFN,
  LambdaClient: LAMBDA,
  SESv2Client: SESV2,
  EventBridgeClient: EVENTBRIDGE,
  SecretsManagerClient: SECRETS_MANAGER,
};

export class UnmappedCallError extends Error {}

export function requiredPermissions(
  clientName: string,
  commandName: string,
  input: Input,
  arn: ArnContext,
): RequiredPermission[] {
  const mapper = BY_CLIENT[clientName]?.[commandName];
  if (!mapper)
    throw new UnmappedCallError(`${clientName} ${commandName} has no IAM mapping (infra/verify/sdk-actions.ts)`);
  return mapper(input, arn);
}

/** The identity ARN alternatives SES accepts for one SendEmail: the address, then its domain. */
export function sesIdentityAlternatives(resource: string): string[] {
  const match = /^(.*:identity\/)([^@]+)@(.+)$/.exec(resource);
  return match ? [resource, `${match[1]}${match[3]}`] : [resource];
}
