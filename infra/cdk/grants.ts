/**
 * Least privilege by intent: an endpoint group declares what it needs in `GroupAccess`, a
 * pipeline task or trigger in a `FunctionAccess` (exact table actions, object actions per key
 * prefix), and this is the only place that turns either into IAM grants. `npm run
 * verify:deploy` checks every call against them and fails on a grant no code in the function's
 * bundle can use (docs/deploy-verification.md).
 */
import { Aws } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { BucketAccess, GroupAccess, TableAction as GroupTableAction } from '../../shared/http/route.ts';

/**
 * No DescribeTable (nothing reads it). ConditionCheckItem and BatchWriteItem only where declared;
 * Scan only in a FunctionAccess, which no endpoint group has (no request path may scan): the
 * site export and import steps (infra/cdk/stacks/site-transfer-machines.ts).
 */
export type TableAction = GroupTableAction | 'ConditionCheckItem' | 'BatchWriteItem' | 'Scan';

const TABLE_READ_ACTIONS: TableAction[] = ['GetItem', 'BatchGetItem', 'Query'];
const TABLE_WRITE_ACTIONS: TableAction[] = ['PutItem', 'UpdateItem', 'DeleteItem'];

export type BucketName = 'media' | 'modules';
export type ObjectAction = 'GetObject' | 'PutObject' | 'DeleteObject' | 'AbortMultipartUpload';

export interface ObjectGrant {
  bucket: BucketName;
  /** Key prefixes (`content/`): the actions apply to objects under these only ('' the whole bucket). */
  prefixes: string[];
  actions: ObjectAction[];
}

export interface ListGrant {
  bucket: BucketName;
  /**
   * s3:ListBucket limited to listings under these prefixes (the s3:prefix condition). Absent:
   * the whole bucket, which a HeadObject needs so that a missing key answers 404, not 403.
   */
  prefixes?: string[];
}

/** Exactly what one function may do. */
export interface FunctionAccess {
  /** Item actions on the table; Query also on its global secondary indexes. */
  table?: TableAction[];
  objects?: ObjectGrant[];
  list?: ListGrant[];
  startImport?: boolean;
  startSiteTransfer?: boolean;
  sendMail?: boolean;
  /** secretsmanager:GetSecretValue on the secrets key, nothing else of Secrets Manager. */
  readSecretsKey?: boolean;
  /** secretsmanager:GetSecretValue on the content signing key, nothing else of Secrets Manager. */
  readContentSigningKey?: boolean;
}

/**
 * An endpoint group's declaration as exact grants. Buckets: reads are presigned GETs (and
 * copies), writes are uploads (presigned POSTs are authorized as the signer's s3:PutObject),
 * deletes are prefix deletes (list, then delete).
 */
export function groupFunctionAccess(access: GroupAccess): FunctionAccess {
  const table: TableAction[] = [
    ...(Array.isArray(access.table)
      ? access.table
      : access.table === 'read'
        ? TABLE_READ_ACTIONS
        : access.table === 'readwrite'
          ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS]
          : []),
    ...(access.conditionChecks ? (['ConditionCheckItem'] as const) : []),
    ...(access.batchWrite ? (['BatchWriteItem'] as const) : []),
  ];
  const objects: ObjectGrant[] = [];
  const list: ListGrant[] = [];
  for (const bucket of ['media', 'modules'] as const) {
    const level = bucket === 'media' ? access.mediaBucket : access.modulesBucket;
    if (!level) continue;
    const byPrefix: BucketAccess =
      level === 'read' ? { read: [''] } : level === 'readwrite' ? { read: [''], write: [''], delete: [''] } : level;
    const add = (prefixes: string[] | undefined, action: ObjectAction) => {
      if (prefixes?.length) objects.push({ bucket, prefixes, actions: [action] });
    };
    add(byPrefix.read, 'GetObject');
    add(byPrefix.write, 'PutObject');
    add(byPrefix.delete, 'DeleteObject');
    if (byPrefix.headMissing) list.push({ bucket });
    else if (byPrefix.delete?.length)
      list.push({ bucket, prefixes: byPrefix.delete.includes('') ? undefined : byPrefix.delete });
  }
  return {
    table,
    objects,
    list,
    startImport: access.startImport,
    startSiteTransfer: access.startSiteTransfer,
    sendMail: access.sendMail,
    readSecretsKey: access.secretsKey,
    readContentSigningKey: access.contentSigningKey,
  };
}

export interface GrantTargets {
  table: ITableV2;
  mediaBucket: IBucket;
  modulesBucket: IBucket;
  /** Absent where the state machine cannot be referenced (its own task functions). */
  importStateMachine?: IStateMachine;
  /** The site export and import state machines (absent for their own task functions). */
  siteTransferStateMachines?: IStateMachine[];
  /** The configured sender; mail may be sent from this address only. */
  mailFrom: string;
  /** The key sealing identity providers' secrets (absent where no function may read it). */
  secretsKey?: ISecret;
  /** The key sealing module content launch tokens (the content stack's; absent where none may read it). */
  contentSigningKey?: ISecret;
}

export function grantAccess(grantee: IGrantable, access: GroupAccess, targets: GrantTargets): void {
  grantFunctionAccess(grantee, groupFunctionAccess(access), targets);
}

export function grantFunctionAccess(grantee: IGrantable, access: FunctionAccess, targets: GrantTargets): void {
  if (access.table?.length) grantTable(grantee, targets.table, access.table);

  const bucketOf = (name: BucketName) => (name === 'media' ? targets.mediaBucket : targets.modulesBucket);
  for (const grant of access.objects ?? []) {
    Grant.addToPrincipal({
      grantee,
      actions: grant.actions.map((action) => `s3:${action}`),
      resourceArns: grant.prefixes.map((prefix) => bucketOf(grant.bucket).arnForObjects(`${prefix}*`)),
    });
  }
  for (const grant of access.list ?? []) {
    const statement = {
      grantee,
      actions: ['s3:ListBucket'],
      resourceArns: [bucketOf(grant.bucket).bucketArn],
    };
    if (!grant.prefixes) Grant.addToPrincipal(statement);
    else
      Grant.addToPrincipal({
        ...statement,
        conditions: { StringLike: { 's3:prefix': grant.prefixes.map((prefix) => `${prefix}*`) } },
      });
  }

  if (access.startImport) {
    const stateMachine = targets.importStateMachine;
    if (!stateMachine) throw new Error('startImport was granted where the import state machine is not available');
    stateMachine.grantStartExecution(grantee);
    // Report progress and let a user cancel their own import.
    stateMachine.grantExecution(grantee, 'states:DescribeExecution', 'states:StopExecution');
  }

  if (access.startSiteTransfer) {
    const machines = targets.siteTransferStateMachines;
    if (!machines?.length)
      throw new Error('startSiteTransfer was granted where the site transfer machines are not available');
    for (const machine of machines) {
      machine.grantStartExecution(grantee);
      // Interrupted jobs are found when read; a cancel stops the execution (decision 166).
      machine.grantExecution(grantee, 'states:DescribeExecution', 'states:StopExecution');
    }
  }

  if (access.sendMail) {
    // SES authorizes SendEmail against the verified identity: the address or its domain.
    const identities = [targets.mailFrom, targets.mailFrom.split('@')[1]];
    Grant.addToPrincipal({
      grantee,
      actions: ['ses:SendEmail'],
      resourceArns: identities.map(
        (identity) => `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/${identity}`,
      ),
    });
  }

  if (access.readSecretsKey) {
    if (!targets.secretsKey) throw new Error('secretsKey was granted where the secrets key is not available');
    grantSecretValue(grantee, targets.secretsKey);
  }
  if (access.readContentSigningKey) {
    if (!targets.contentSigningKey)
      throw new Error('contentSigningKey was granted where the content signing key is not available');
    grantSecretValue(grantee, targets.contentSigningKey);
  }
}

/** GetSecretValue on one secret. Not secret.grantRead: that adds DescribeSecret, which nothing here calls. */
function grantSecretValue(grantee: IGrantable, secret: ISecret): void {
  Grant.addToPrincipal({ grantee, actions: ['secretsmanager:GetSecretValue'], resourceArns: [secret.secretArn] });
}

/**
 * Item actions on the table itself; Query also on `<table>/index/*` (or only there, with
 * `queryIndexes`). CDK's table.grant puts every action on the indexes too, where only Query and
 * Scan mean anything.
 */
/**
 * What Powertools' idempotency utility does for a write sent with `Idempotency-Key` (decision
 * 223): get, put, update and delete its record, in the idempotency partitions only, whatever the
 * group's own table access is.
 */
export function grantIdempotencyRecords(grantee: IGrantable, table: ITableV2): void {
  Grant.addToPrincipal({
    grantee,
    actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'].map((action) => `dynamodb:${action}`),
    resourceArns: [table.tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['IDEMPOTENCY#*'] } },
  });
}

export function grantTable(
  grantee: IGrantable,
  table: ITableV2,
  actions: TableAction[],
  options: { queryIndexes?: boolean } = {},
): void {
  Grant.addToPrincipal({
    grantee,
    actions: actions.map((action) => `dynamodb:${action}`),
    resourceArns: [table.tableArn],
  });
  if (actions.includes('Query') || options.queryIndexes)
    Grant.addToPrincipal({ grantee, actions: ['dynamodb:Query'], resourceArns: [`${table.tableArn}/index/*`] });
}
