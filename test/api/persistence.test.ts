/**
 * `npm start` keeps its data under STEPWISE_DATA_DIR: what one run wrote, the next run reads
 * (DynamoDB file, S3 objects). Two short-lived stack processes on one folder prove it.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStackProcess } from '../support/local-stack-process.ts';

async function json(response: Response): Promise<{ status: number; body: any }> {
  return { status: response.status, body: await response.json() };
}

describe('persistent local data', () => {
  it('keeps users and tokens across a restart, and does not re-create the first Admin', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stepwise-data-'));
    const env = { STEPWISE_IN_MEMORY: '', STEPWISE_DATA_DIR: dataDir };
    try {
      const first = await startStackProcess(env);
      let token: string;
      let userid: number;
      try {
        const login = await json(
          await fetch(`${first.url}/user/token`, {
            method: 'POST',
            body: JSON.stringify({ email: 'admin@example.com', password: 'stepwise-admin' }),
          }),
        );
        expect(login.status).toBe(201);
        token = login.body.authToken;
        const created = await json(
          await fetch(`${first.url}/users`, {
            method: 'POST',
            headers: { authorization: `api ${token}` },
            body: JSON.stringify({ email: 'kept@example.com', username: 'Kept User', password: 'Kept-pass-123' }),
          }),
        );
        expect(created.status).toBe(201);
        userid = created.body.userid;
      } finally {
        await first.stop();
      }

      const second = await startStackProcess(env);
      try {
        const read = await json(
          await fetch(`${second.url}/users/${userid}`, { headers: { authorization: `api ${token}` } }),
        );
        expect(read.status).toBe(200);
        expect(read.body.username).toBe('Kept User');
        const admins = await json(
          await fetch(`${second.url}/users/search/admin`, { headers: { authorization: `api ${token}` } }),
        );
        expect(admins.body.filter((user: { privileges: string[] }) => user.privileges.includes('Admin'))).toHaveLength(
          1,
        );
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
