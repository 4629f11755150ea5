/**
 * Least privilege by intent: a group (or pipeline task) declares what it needs in
 * `GroupAccess`, and this is the only place that turns the declaration into IAM grants.
 */
import { Aws } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { GroupAccess } from '../shared/http/route.ts';

/**
 * Table actions by intent. Deliberately no dynamodb:Scan: no request path may scan
 * (docs/architecture.md), and IAM is where that rule holds even if code forgets it.
 */
const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
];
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

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
}

export function grantAccess(grantee: IGrantable, access: GroupAccess, targets: GrantTargets): void {
  if (access.table === 'read') targets.table.grant(grantee, ...TABLE_READ_ACTIONS);
  if (access.table === 'readwrite') targets.table.grant(grantee, ...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS);
  // Only the site export and import jobs scan (background work, never a request path).
  if (access.scanTable) targets.table.grant(grantee, 'dynamodb:Scan');

  grantBucket(grantee, targets.mediaBucket, access.mediaBucket);
  grantBucket(grantee, targets.modulesBucket, access.modulesBucket);

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
    for (const machine of machines) machine.grantStartExecution(grantee);
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
}

function grantBucket(grantee: IGrantable, bucket: IBucket, level: 'read' | 'readwrite' | undefined): void {
  if (level === 'read') bucket.grantRead(grantee);
  // Writers also sign presigned POST uploads, which S3 authorizes with the signer's s3:PutObject.
  if (level === 'readwrite') bucket.grantReadWrite(grantee);
}
