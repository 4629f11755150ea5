/**
 * A Secrets Manager stand-in on 127.0.0.1 for the tests of the keys read by ARN (decisions 240, 346):
 * the real SDK client sends it GetSecretValue, and `answer` says what it returns for the secret asked
 * for, a value or a fault. Point AWS_ENDPOINT_URL_SECRETS_MANAGER at `endpoint`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StandInAnswer = { secretString: string; versionId?: string } | { status: number; type: string };

export interface SecretsManagerStandIn {
  endpoint: string;
  close(): Promise<void>;
}

export async function startSecretsManagerStandIn(
  answer: (secretId: string, target: string | undefined) => StandInAnswer,
): Promise<SecretsManagerStandIn> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string };
    const given = answer(SecretId, request.headers['x-amz-target'] as string | undefined);
    const fault = 'status' in given;
    response.writeHead(fault ? given.status : 200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(
      JSON.stringify(
        fault
          ? { __type: given.type, message: 'refused by the stand-in' }
          : { ARN: SecretId, Name: 'stepwise-key', SecretString: given.secretString, VersionId: given.versionId },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
