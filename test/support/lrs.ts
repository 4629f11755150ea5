/**
 * A minimal learning record store for the test run (xAPI 1.0.3 statements resource): POST
 * /xapi/statements stores statements by id (Basic credentials and the version header
 * required), GET /xapi/statements answers {statements: [...]} for tests to read.
 */
import { createServer } from 'node:http';

export const LRS_CREDENTIALS = { username: 'lrs-user', password: 'lrs-secret' };

export async function startLrs(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const statements = new Map<string, unknown>();
  const expected = `Basic ${Buffer.from(`${LRS_CREDENTIALS.username}:${LRS_CREDENTIALS.password}`).toString('base64')}`;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body?: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json', 'x-experience-api-version': '1.0.3' });
        response.end(body === undefined ? '' : JSON.stringify(body));
      };
      if (!request.url?.startsWith('/xapi/statements')) return answer(404, { message: 'Not found' });
      if (request.method === 'GET') return answer(200, { statements: [...statements.values()] });
      if (request.headers.authorization !== expected) return answer(401, { message: 'Unauthorized' });
      if (request.headers['x-experience-api-version'] !== '1.0.3')
        return answer(400, { message: 'X-Experience-API-Version required' });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Array<{ id: string }>;
      for (const statement of [body].flat()) statements.set(statement.id, statement);
      return answer(
        200,
        [body].flat().map((statement) => statement.id),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}/xapi/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
