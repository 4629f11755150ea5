// The commands sfn.ts loads. Named here, not taken as the SDK's namespace, so the bundles keep only these.
export { DescribeExecutionCommand, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
