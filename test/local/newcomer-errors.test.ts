/**
 * The first things a newcomer or an operator gets wrong are each one line saying what to do, not a
 * stack trace: `npm start` without java on PATH or with PORT taken, `npm run admin:set-password`
 * without AWS credentials. Each command is run as a child process under that condition.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The environment without anything that names AWS credentials or a local table. */
function withoutAws(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && name !== 'DDB_ENDPOINT'),
  );
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv, input = '') {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    env,
    input,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm start', () => {
  it('without java on PATH says to install a JDK 17+ and where, and exits 1', () => {
    const started = run('infra/local/start.ts', [], {
      ...process.env,
      PATH: mkdtempSync(path.join(tmpdir(), 'no-java-')),
      STEPWISE_IN_MEMORY: '1',
      PORT: '0',
    });
    expect(started.code).toBe(1);
    expect(started.stdout).toBe('');
    expect(started.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(started.stderr).toMatch(/^Stepwise cannot start: no `java` on PATH\. .*JDK 17\+.*openjdk-17-jre-headless/);
  });

  it('with a java that cannot run DynamoDB Local prints what Java said, not a stack trace, and exits 1', () => {
    // A stand-in `java` first on PATH that fails as a JDK older than 17 does.
    const bin = mkdtempSync(path.join(tmpdir(), 'old-java-'));
    const said =
      'Error: LinkageError occurred while loading main class com.amazonaws.services.dynamodbv2.local.main.ServerRunner';
    const detail =
      'java.lang.UnsupportedClassVersionError: compiled by a more recent version (class file version 61.0)';
    writeFileSync(path.join(bin, 'java'), `#!/bin/sh\necho '${said}' >&2\necho '\t${detail}' >&2\nexit 1\n`);
    chmodSync(path.join(bin, 'java'), 0o755);
    const started = run('infra/local/start.ts', [], {
      ...process.env,
      PATH: `${bin}${path.delimiter}${process.env.PATH}`,
      STEPWISE_IN_MEMORY: '1',
      PORT: '0',
    });
    expect(started.code).toBe(1);
    expect(started.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(started.stderr).toContain('Stepwise cannot start: DynamoDB Local exited with code 1. Java said: ');
    expect(started.stderr).toContain(`${said} | ${detail}`);
    expect(started.stderr).toContain('JDK 17+');
    expect(started.stderr).not.toMatch(/\n\s+at /);
  });

  it('on a port another program listens on says to set PORT, and exits 1', async () => {
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      // Asynchronous: the holder must keep answering while the command runs.
      const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
        env: { ...process.env, STEPWISE_IN_MEMORY: '1', PORT: String(port) },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toBe(
        `Stepwise cannot start: port ${port} is in use by another program. ` +
          'Set PORT to another port (PORT=3001 npm start, or PORT=0 for any free one)\n',
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe('npm run admin:set-password', () => {
  it('without AWS credentials says how to get them, before asking for the password, and exits 1', () => {
    const result = run('infra/ops/set-admin-password.ts', ['--email', 'ops@example.com', '--region', 'eu-west-1'], {
      ...withoutAws(),
      HOME: mkdtempSync(path.join(tmpdir(), 'no-aws-home-')),
      // No instance metadata to wait for on a developer's machine or in CI.
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^No AWS credentials found\. Configure the target account first \(`aws configure`/);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('an unknown option prints the usage and exits 2', () => {
    const result = run('infra/ops/set-admin-password.ts', ['--emial', 'ops@example.com'], withoutAws());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run admin:set-password -- --email <email>');
  });
});
