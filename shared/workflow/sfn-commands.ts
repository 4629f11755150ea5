/**
 * What sfn.ts loads on first use: the client and the commands, as `#sfn-sdk` (package.json
 * "imports"), a side bundle of its own when deployed (decision 155). The commands are named here,
 * not taken as the SDK's namespace, so the side bundle keeps only these.
 */
export { DescribeExecutionCommand, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
export { sfnClient } from './sfn-client.ts';
