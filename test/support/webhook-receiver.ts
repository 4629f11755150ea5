/**
 * A webhook receiver for tests: a node http server on 127.0.0.1 that records every request
 * (headers and raw body) and answers with what `respond` says (a status, or 'hang' to never
 * answer). Stop it with close().
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Decides each answer; default 200. */
  respond: (delivery: ReceivedDelivery, index: number) => number | 'hang';
  /** Resolves once `predicate` holds for the received list (polls; fails after `timeoutMs`). */
  waitFor(predicate: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    respond: () => 200,
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline)
          throw new Error(
            `The receiver did not get what was expected; got ` +
              `${JSON.stringify(receiver.received.map((r) => [r.headers['x-stepwise-event'], r.json?.data]))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return receiver.received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const delivery = { headers: request.headers, body, json };
      const index = receiver.received.push(delivery) - 1;
      const answer = receiver.respond(delivery, index);
      if (answer === 'hang') {
        hanging.push(response);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return receiver;
}
