/**
 * The one Step Functions client. In AWS it is a plain regional client; with SFN_ENDPOINT set
 * (npm start, tests) it talks to the local endpoint in infra/local/sfn-local.ts, which does
 * not check signatures but the SDK still needs some credentials to sign with.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { config } from '../config.ts';
import { offerClientToHook } from '../sdk-client-hook.ts';

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

let client: SFNClient | undefined;

export function sfnClient(): SFNClient {
  if (!client) {
    const { SFN_ENDPOINT, AWS_REGION } = config();
    client = offerClientToHook(
      new SFNClient({
        region: AWS_REGION,
        ...(SFN_ENDPOINT ? { endpoint: SFN_ENDPOINT, credentials: LOCAL_CREDENTIALS } : {}),
      }),
    );
  }
  return client;
}

/** Drops the memoized client so the next call reads the (changed) configuration again. */
export function resetSfnClientForTests(): void {
  client?.destroy();
  client = undefined;
}
