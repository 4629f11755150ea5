import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { spawnSync } from 'node:child_process';
import { api, createUser, uniqueSuffix } from '../support/api.ts';

function setAdminPassword(email: string, password: string) {
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', 'infra/ops/set-admin-password.ts', '--email', email, '--table', 'stepwise'],
    {
      input: `${password}\n`,
      encoding: 'utf8',
      env: {
        ...process.env,
        DDB_ENDPOINT: inject('ddbEndpoint'),
        AWS_ACCESS_KEY_ID: 'x',
        AWS_SECRET_ACCESS_KEY: 'x',
        LOG_LEVEL: 'ERROR',
      },
    },
  );
}

describe('npm run admin:set-password', () => {
  it('creates an Admin with the password read from stdin', async () => {
    const email = `ops.${uniqueSuffix()}@example.com`;
    const run = setAdminPassword(email, 'Operator-pass-42');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('Created Admin');
    const login = await api('POST', '/user/token', { body: { email, password: 'Operator-pass-42' } });
    expect(login.status).toBe(201);
    expect(login.body.privileges).toEqual(['Admin']);
  });

  it('promotes an existing account, sets its password and revokes its tokens', async () => {
    const user = await createUser();
    const run = setAdminPassword(user.email, 'Operator-pass-43');
    expect(run.status, run.stderr).toBe(0);
    expect((await api('GET', '/user', { token: user.token })).status).toBe(401);
    const login = await api('POST', '/user/token', { body: { email: user.email, password: 'Operator-pass-43' } });
    expect(login.body.privileges).toContain('Admin');
  });

  it('refuses a weak password', () => {
    const run = setAdminPassword(`weak.${uniqueSuffix()}@example.com`, 'short');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Password refused');
  });
});
