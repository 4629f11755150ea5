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
 * GroupAccess plus what shared/http/route.ts does not declare yet: `sendMail` (SES, for
 * password-reset and invitation mail). Once GroupAccess has it, this is just GroupAccess.
 */
export type DeployAccess = GroupAccess & { sendMail?: boolean };

export interface GrantTargets {
  table: ITableV2;
  mediaBucket: IBucket;
  modulesBucket: IBucket;
  /** Absent where the state machine cannot be referenced (its own task functions). */
  importStateMachine?: IStateMachine;
  /** The configured sender; mail may be sent from this address only. */
  mailFrom: string;
}

export function grantAccess(grantee: IGrantable, access: DeployAccess, targets: GrantTargets): void {
  if (access.table === 'read') targets.table.grantReadData(grantee);
  if (access.table === 'readwrite') targets.table.grantReadWriteData(grantee);

  grantBucket(grantee, targets.mediaBucket, access.mediaBucket);
  grantBucket(grantee, targets.modulesBucket, access.modulesBucket);

  if (access.startImport) {
    const stateMachine = targets.importStateMachine;
    if (!stateMachine) throw new Error('startImport was granted where the import state machine is not available');
    stateMachine.grantStartExecution(grantee);
    // Report progress and let a user cancel their own import.
    stateMachine.grantExecution(grantee, 'states:DescribeExecution', 'states:StopExecution');
  }

  if (access.sendMail) {
    // SES authorizes SendEmail against the verified identity: the address or its domain.
    const identities = [targets.mailFrom, targets.mailFrom.split('@')[1]];
    Grant.addToPrincipal({
      grantee,
      actions: ['ses:SendEmail'],
      resourceArns: identities.map((identity) => `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/${identity}`),
    });
  }
}

function grantBucket(grantee: IGrantable, bucket: IBucket, level: 'read' | 'readwrite' | undefined): void {
  if (level === 'read') bucket.grantRead(grantee);
  // Writers also sign presigned POST uploads, which S3 authorizes with the signer's s3:PutObject.
  if (level === 'readwrite') bucket.grantReadWrite(grantee);
}
