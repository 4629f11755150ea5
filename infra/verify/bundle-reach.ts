/**
 * Which IAM actions a bundle can ever need: the AWS SDK command classes (and presigners) it
 * contains. esbuild drops the commands no code of the function reaches, and the bundles keep
 * class names (keepNames), so a command's name in the bundle means some path can send it.
 * The IAM report uses this to split the grants no test exercised in two: those a path the tests
 * did not take could use (kept, and named), and those nothing in the bundle can use (avoidable:
 * they fail the run). It is an upper bound: a command in the bundle may sit on a dead branch.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { wildcardMatch } from './iam-policy.ts';

/** Every action a command (or presigner) in the bundle implies, as sdk-actions.ts authorizes it. */
const ACTIONS_BY_NAME: Record<string, string[]> = {
  // DynamoDB. A transaction may hold any kind of item; TransactGet reads as GetItem.
  GetItemCommand: ['dynamodb:GetItem'],
  PutItemCommand: ['dynamodb:PutItem'],
  UpdateItemCommand: ['dynamodb:UpdateItem'],
  DeleteItemCommand: ['dynamodb:DeleteItem'],
  QueryCommand: ['dynamodb:Query'],
  ScanCommand: ['dynamodb:Scan'],
  DescribeTableCommand: ['dynamodb:DescribeTable'],
  BatchGetItemCommand: ['dynamodb:BatchGetItem'],
  BatchWriteItemCommand: ['dynamodb:BatchWriteItem'],
  TransactGetItemsCommand: ['dynamodb:GetItem'],
  TransactWriteItemsCommand: [
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  // S3. HEAD needs s3:ListBucket for a missing key to answer 404 rather than 403.
  GetObjectCommand: ['s3:GetObject'],
  HeadObjectCommand: ['s3:GetObject', 's3:ListBucket'],
  PutObjectCommand: ['s3:PutObject'],
  CreateMultipartUploadCommand: ['s3:PutObject'],
  UploadPartCommand: ['s3:PutObject'],
  CompleteMultipartUploadCommand: ['s3:PutObject'],
  AbortMultipartUploadCommand: ['s3:AbortMultipartUpload'],
  DeleteObjectCommand: ['s3:DeleteObject'],
  DeleteObjectsCommand: ['s3:DeleteObject'],
  CopyObjectCommand: ['s3:GetObject', 's3:PutObject'],
  ListObjectsV2Command: ['s3:ListBucket'],
  ListObjectsCommand: ['s3:ListBucket'],
  HeadBucketCommand: ['s3:ListBucket'],
  GetObjectTaggingCommand: ['s3:GetObjectTagging'],
  PutObjectTaggingCommand: ['s3:PutObjectTagging'],
  // A presigned POST is authorized at upload time as the signer's s3:PutObject.
  createPresignedPost: ['s3:PutObject'],
  // A presigned GET (shared/storage/presigned-get.ts, no command class) as the signer's s3:GetObject.
  presignGetObject: ['s3:GetObject'],
  // Step Functions, Lambda, SES, EventBridge.
  StartExecutionCommand: ['states:StartExecution'],
  DescribeExecutionCommand: ['states:DescribeExecution'],
  StopExecutionCommand: ['states:StopExecution'],
  ListExecutionsCommand: ['states:ListExecutions'],
  InvokeCommand: ['lambda:InvokeFunction'],
  SendEmailCommand: ['ses:SendEmail'],
  PutEventsCommand: ['events:PutEvents'],
  GetSecretValueCommand: ['secretsmanager:GetSecretValue'],
};

const NAME_PATTERN = new RegExp(`\\b(${Object.keys(ACTIONS_BY_NAME).join('|')})\\b`, 'g');

/** The actions the bundle's code can need (read from the bundle file and its side bundles, decision 155). */
export function reachableActions(bundleFile: string): Set<string> {
  const dir = dirname(bundleFile);
  const code = readdirSync(dir)
    .filter((file) => /\.[cm]?js$/.test(file))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
  const actions = new Set<string>();
  for (const [name] of code.matchAll(NAME_PATTERN)) for (const action of ACTIONS_BY_NAME[name]) actions.add(action);
  return actions;
}

/** Whether a granted action pattern (`s3:GetObject*`) covers some reachable action. */
export function isReachable(grantedAction: string, reachable: Set<string>): boolean {
  for (const action of reachable) if (wildcardMatch(grantedAction, action, true)) return true;
  return false;
}
