/** Hands an event to a group's function on AWS (names from GROUP_FUNCTIONS, set by CDK). */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../shared/config.ts';
import { offerClientToHook } from '../../shared/sdk-client-hook.ts';

let client: LambdaClient | undefined;

export async function invokeGroupFunction(
  group: string,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> {
  const functions = JSON.parse(config().GROUP_FUNCTIONS) as Record<string, string>;
  const functionName = functions[group];
  if (!functionName) throw new Error(`No function configured for group ${group}`);
  client ??= offerClientToHook(new LambdaClient({ region: config().AWS_REGION }));
  const result = await client.send(
    new InvokeCommand({ FunctionName: functionName, Payload: Buffer.from(JSON.stringify(event)) }),
  );
  if (result.FunctionError) throw new Error(`Group ${group} failed: ${result.FunctionError}`);
  return JSON.parse(Buffer.from(result.Payload ?? []).toString('utf8'));
}
