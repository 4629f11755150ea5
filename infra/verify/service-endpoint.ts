/**
 * Local stand-ins for the two AWS APIs the bundles call that have no local engine, on one port
 * (AWS_ENDPOINT_URL_LAMBDA and AWS_ENDPOINT_URL_EVENTBRIDGE point here):
 * - Lambda Invoke (POST /2015-03-31/functions/<name>/invocations), enough for the fallback
 *   router's RequestResponse invocations of group functions;
 * - EventBridge PutEvents (X-Amz-Target AWSEvents.PutEvents) onto the buses the template
 *   declares: entries are counted, and an entry for another bus fails as AWS reports it;
 * - Secrets Manager GetSecretValue (X-Amz-Target secretsmanager.GetSecretValue) of the secrets
 *   the template makes, each with a value generated here, as CloudFormation would (or the one the
 *   host must share with the functions: the content signing key of the local content server).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Context } from 'aws-lambda';

type Invoker = (event: unknown, context?: Partial<Context>) => Promise<unknown>;

export interface ServiceEndpoint {
  url: string;
  /** Events put on each bus, by bus name. */
  eventsByBus: Map<string, number>;
  close(): Promise<void>;
}

interface PutEventsEntry {
  EventBusName?: string;
}

export async function startServiceEndpoint(options: {
  findFunction: (name: string) => Promise<Invoker> | undefined;
  /** Bus names and ARNs the template declares. */
  buses: Array<{ name: string; arn: string }>;
  /** ARNs of the secrets the template makes. */
  secrets: string[];
  /** Values of some of them that the host knows too, by ARN; the others are generated here. */
  knownValues?: Map<string, string>;
}): Promise<ServiceEndpoint> {
  const eventsByBus = new Map<string, number>();
  const secretValues = new Map(
    options.secrets.map((arn) => [arn, options.knownValues?.get(arn) ?? randomBytes(32).toString('base64url')]),
  );
  const json = (response: import('node:http').ServerResponse, status: number, body: unknown, headers = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');

    if (request.headers['x-amz-target'] === 'secretsmanager.GetSecretValue') {
      const { SecretId } = JSON.parse(text) as { SecretId?: string };
      const value = SecretId ? secretValues.get(SecretId) : undefined;
      if (value === undefined) {
        json(response, 400, { __type: 'ResourceNotFoundException', message: `Secret ${SecretId} not found` });
        return;
      }
      json(response, 200, { ARN: SecretId, Name: SecretId!.split(':').at(-1), SecretString: value, VersionId: 'v1' });
      return;
    }

    if (request.headers['x-amz-target'] === 'AWSEvents.PutEvents') {
      const entries = ((JSON.parse(text) as { Entries?: PutEventsEntry[] }).Entries ?? []).map((entry) => {
        const named = entry.EventBusName ?? 'default';
        const bus = options.buses.find((candidate) => candidate.name === named || candidate.arn === named);
        if (!bus) return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${named} does not exist.` };
        eventsByBus.set(bus.name, (eventsByBus.get(bus.name) ?? 0) + 1);
        return { EventId: crypto.randomUUID() };
      });
      json(response, 200, {
        FailedEntryCount: entries.filter((entry) => 'ErrorCode' in entry).length,
        Entries: entries,
      });
      return;
    }

    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(
      new URL(request.url ?? '/', 'http://localhost').pathname,
    );
    const found = match ? options.findFunction(decodeURIComponent(match[1])) : undefined;
    if (!found) {
      json(response, 404, { message: 'Function not found' }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
      return;
    }
    try {
      const result = await (await found)(text ? JSON.parse(text) : {});
      json(response, 200, result ?? null, { 'x-amz-executed-version': '$LATEST' });
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      json(
        response,
        200,
        { errorType: failure.name, errorMessage: failure.message },
        {
          'x-amz-function-error': 'Unhandled',
        },
      );
    }
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    eventsByBus,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}
