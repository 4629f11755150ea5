/**
 * `npm run migrate` as an operator runs it, against fake sources on 127.0.0.1 (issue 23 item 6,
 * issue 26): the password never on the command line, an existing --out kept, a login redirected
 * to another origin refused before the password leaves, a loopback media URL refused unless
 * --allow-host names it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

function migrate(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/ops/migrate/main.ts', ...args], {
    env: { ...process.env, LOG_LEVEL: 'ERROR', STEPWISE_MIGRATE_PASSWORD: '', ...options.env },
  });
  child.stdin.end(options.stdin ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

interface Seen {
  method: string;
  url: string;
  body: string;
}

/** A server on 127.0.0.1 that records each request and answers as the test says. */
async function server(answer: (request: Seen, response: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  const instance = http.createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const one = { method: request.method!, url: request.url!, body };
    seen.push(one);
    answer(one, response);
  });
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(instance.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => instance.close(() => resolve())) };
}

const json = (response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

let work: string;
let elsewhere: Awaited<ReturnType<typeof server>>;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'migrate-cli-'));
  const png = await sharp({ create: { width: 2, height: 3, channels: 3, background: '#fff' } })
    .png()
    .toBuffer();
  // Another origin on loopback: where a hostile source points its redirects and media URLs.
  elsewhere = await server((request, response) =>
    request.url.startsWith('/api/') ? json(response, 201, { authToken: 'caught' }) : response.end(png),
  );
});
afterAll(() => elsewhere.close());

describe.concurrent('migrate arguments', () => {
  it('refuses --password with how to pass it instead (exit 2)', async () => {
    const run = await migrate(['--from', 'http://127.0.0.1:1/api/2.0', '--email', 'a@b.c', '--password', 'pw']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('STEPWISE_MIGRATE_PASSWORD');
    expect(run.stderr).toContain('--password-stdin');
  });

  it('refuses --email with no password from the environment or standard input (exit 2)', async () => {
    const out = path.join(work, 'none.jsonl');
    const run = await migrate(['--from', 'http://127.0.0.1:1/api/2.0', '--email', 'a@b.c', '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('--email needs a password');
  });

  it('keeps an existing --out unless --force (exit 2)', async () => {
    const out = path.join(work, 'kept.jsonl');
    await writeFile(out, 'precious\n');
    const run = await migrate(['--from', 'http://127.0.0.1:1/api/2.0', '--token', 't', '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('add --force to overwrite it');
    expect(await readFile(out, 'utf8')).toBe('precious\n');
  });
});

describe('migrate trusts the source with nothing', () => {
  it('reads the password from standard input, and refuses a login redirected to another origin', async () => {
    const source = await server((request, response) => {
      if (request.url === '/api/2.0/user/token') {
        response.writeHead(307, { location: `${elsewhere.url}/api/2.0/user/token` });
        response.end();
      } else json(response, 404, { message: 'Not found' });
    });
    try {
      const out = path.join(work, 'redirected.jsonl');
      const run = await migrate(
        ['--from', `${source.url}/api/2.0`, '--email', 'admin@example.com', '--password-stdin', '--out', out],
        { stdin: 'from-stdin\n' },
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`redirected (307) to ${elsewhere.url}`);
      // The source got the password (it is the site the operator named); the other origin nothing.
      expect(JSON.parse(source.seen[0]!.body)).toEqual({ email: 'admin@example.com', password: 'from-stdin' });
      expect(elsewhere.seen).toHaveLength(0);
      expect(existsSync(out)).toBe(false);
    } finally {
      await source.close();
    }
  });

  it('refuses a loopback media URL on another port, and fetches it once --allow-host names it', async () => {
    const mediaUrl = `${elsewhere.url}/latest/meta-data/iam.png`;
    const source = await server((request, response) => {
      const url = new URL(request.url, 'http://source');
      if (url.pathname === '/api/2.0/user') return json(response, 200, { userid: 1, privileges: ['Admin'] });
      if (url.pathname === '/api/2.0/user/media/current' && url.searchParams.get('offset') === '0') {
        return json(response, 200, [{ id: 9, type: 'GuideImage', filename: 'iam.png', date: 1 }]);
      }
      if (url.pathname === '/api/2.0/media/images/9') {
        return json(response, 200, { image: { id: 9, guid: 'g9', original: mediaUrl } });
      }
      return json(response, 200, []);
    });
    try {
      const args = ['--from', `${source.url}/api/2.0`, '--token', 't', '--only', 'media', '--rate', '1000'];
      const refused = await migrate([...args, '--out', path.join(work, 'refused.jsonl')]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('loopback');
      expect(refused.stderr).toContain(`--allow-host ${new URL(elsewhere.url).host}`);
      expect(elsewhere.seen).toHaveLength(0);

      // An existing file is overwritten with --force.
      const out = path.join(work, 'allowed.jsonl');
      await writeFile(out, 'an older crawl\n');
      const allowed = await migrate([...args, '--out', out, '--force', '--allow-host', new URL(elsewhere.url).host]);
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(elsewhere.seen.map((request) => request.url)).toEqual(['/latest/meta-data/iam.png']);
      const objects = (await readFile(out, 'utf8')).split('\n').filter((line) => line.includes('"object"'));
      expect(objects.length).toBeGreaterThan(0);
      expect(await readFile(out, 'utf8')).not.toContain('an older crawl');
    } finally {
      await source.close();
    }
  });
});
