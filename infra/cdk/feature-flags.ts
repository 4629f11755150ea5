/**
 * CDK feature flags this app relies on. They live here rather than in cdk.json so the tests,
 * which build the app in-process, synthesize exactly what `cdk synth` does. Context given on
 * the command line or in cdk.json still wins.
 */
export const FEATURE_FLAGS: Record<string, unknown> = {
  // Grant S3 server access logging through a bucket policy; the legacy behaviour sets a
  // LogDeliveryWrite ACL, which buckets with ACLs disabled (the S3 default) reject.
  '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
  // Merge IAM statements: one route table grows many grants, and policies have a size limit.
  '@aws-cdk/aws-iam:minimizePolicies': true,
  // Fail synth on CloudFormation schema and lint findings instead of printing warnings.
  '@aws-cdk/core:validateAgainstDefaultRules': true,
  // Classic exports/imports between the stacks: the producer cannot drop a value a consumer
  // still uses. docs/operations.md ("Restore") has the one procedure this makes two-step.
  '@aws-cdk/core:defaultCrossStackReferences': 'strong',
};
