/**
 * `npm run export` and `npm run import` against a local fake of the Admin job routes and of the
 * presigned S3 URLs they hand out (the jobs themselves are tested with the transfer routes).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import busboy from 'busboy';

const TOKEN = 'admin-token';
const PART_1 = '{"type":"header"}\n{"type":"item"}\n';
const PART_2 = '{"type":"end"}\n';

interface Scenario {
  exportFails: boolean;
  partFailures: number;
  importFails: boolean;
  exportReads: number;
  importReads: number;
  importBody: unknown;
  uploaded: boolean;
  uploadFields: string[];
  uploadedFile: string;
  storageAuthorization: Array<string | undefined>;
  apiAuthorization: Array<string | undefined>;
}
let scenario: Scenario;
beforeEach(() => {
  scenario = {
    exportFails: false,
    partFailures: 0,
    importFails: false,
    exportReads: 0,
    importReads: 0,
    importBody: undefined,
    uploaded: false,
    uploadFields: [],
    uploadedFile: '',
    storageAuthorization: [],
    apiAuthorization: [],
  };
});

let site: http.Server;
let storage: http.Server;
let siteUrl: string;
let storageUrl: string;
let dir: string;

function json(response: http.ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function bodyOf(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'site-transfer-'));
  storage = http.createServer((request, response) => {
    scenario.storageAuthorization.push(request.headers.authorization);
    if (request.method === 'GET' && request.url === '/parts/1') response.end(PART_1);
    else if (request.method === 'GET' && request.url === '/parts/2') {
      if (scenario.partFailures > 0) {
        scenario.partFailures -= 1;
        // Half the part, then the connection drops: the retry must not keep the half.
        response.writeHead(200, { 'content-length': String(PART_2.length) });
        response.write(PART_2.slice(0, 5));
        setTimeout(() => response.socket?.destroy(), 10);
      } else response.end(PART_2);
    } else if (request.method === 'POST' && request.url === '/upload') {
      const form = busboy({ headers: request.headers });
      form.on('field', (name) => scenario.uploadFields.push(name));
      form.on('file', (name, stream) => {
        scenario.uploadFields.push(name);
        stream.on('data', (chunk: Buffer) => (scenario.uploadedFile += chunk.toString('utf8')));
      });
      form.on('close', () => {
        scenario.uploaded = true;
        response.writeHead(204).end();
      });
      request.pipe(form);
    } else response.writeHead(404).end();
  });
  site = http.createServer(async (request, response) => {
    // The commands' reachability check: open, no token.
    if (request.url === '/api/2.0/health') return json(response, 200, { status: 'ok' });
    scenario.apiAuthorization.push(request.headers.authorization);
    if (request.headers.authorization !== `api ${TOKEN}`) return json(response, 401, { message: 'Invalid login' });
    const route = `${request.method} ${request.url}`;
    if (route === 'POST /api/2.0/admin/exports') return json(response, 202, { exportid: 'exp1', status: 'running' });
    if (route === 'GET /api/2.0/admin/exports/exp1') {
      scenario.exportReads += 1;
      if (scenario.exportReads < 3)
        return json(response, 200, { status: 'running', percent: scenario.exportReads * 30 });
      if (scenario.exportFails) return json(response, 200, { status: 'failed', percent: 60, error: 'disk on fire' });
      return json(response, 200, {
        status: 'complete',
        percent: 100,
        counts: { Guide: 1 },
        error: null,
        files: [
          { part: 2, url: `${storageUrl}/parts/2`, size: PART_2.length },
          { part: 1, url: `${storageUrl}/parts/1`, size: PART_1.length },
        ],
      });
    }
    if (route === 'POST /api/2.0/admin/imports') {
      scenario.importBody = await bodyOf(request);
      return json(response, 201, {
        importid: 'imp1',
        upload: {
          url: `${storageUrl}/upload`,
          fields: { key: 'imports/imp1.jsonl', policy: 'p', 'x-amz-signature': 's' },
        },
      });
    }
    if (route === 'POST /api/2.0/admin/imports/imp1/start') {
      return scenario.uploaded
        ? json(response, 202, { status: 'validating' })
        : json(response, 409, { message: 'No file' });
    }
    if (route === 'GET /api/2.0/admin/imports/imp1') {
      scenario.importReads += 1;
      if (scenario.importReads < 3) return json(response, 200, { status: 'validating', percent: 50 });
      if (scenario.importFails) {
        return json(response, 200, {
          status: 'failed',
          percent: 50,
          error: 'id collisions',
          report: { collisions: 2 },
        });
      }
      const dryRun = (scenario.importBody as { dry_run: boolean }).dry_run;
      return json(response, 200, {
        status: dryRun ? 'validated' : 'complete',
        percent: 100,
        report: { counts: { Guide: 1 } },
      });
    }
    json(response, 404, { message: 'Endpoint not found' });
  });
  siteUrl = await listen(site);
  storageUrl = await listen(storage);
});
afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
  await new Promise((resolve) => storage.close(resolve));
});

function command(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', `infra/ops/site-transfer/${script}`, ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run export', () => {
  it('starts the export, waits for it, and joins the parts in order into the file', async () => {
    const out = path.join(dir, 'backup.jsonl');
    const run = await command('export-main.ts', ['--from', siteUrl, '--token', TOKEN, '--out', out, '--poll', '0.02']);
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(PART_1 + PART_2);
    expect(scenario.exportReads).toBe(3);
    expect(run.stdout).toContain('Guide: 1');
    expect(scenario.apiAuthorization.every((value) => value === `api ${TOKEN}`)).toBe(true);
    // Presigned URLs carry their own authorization; the token stays with the site.
    expect(scenario.storageAuthorization).toEqual([undefined, undefined]);
  });

  it('starts a part again when its download breaks off', async () => {
    scenario.partFailures = 1;
    const out = path.join(dir, 'retried.jsonl');
    const run = await command('export-main.ts', ['--from', siteUrl, '--token', TOKEN, '--out', out, '--poll', '0.02']);
    expect(run.code, run.stderr).toBe(0);
    expect(scenario.partFailures).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(PART_1 + PART_2);
  });

  it('exits 1 with the job status when the export fails, leaving no file', async () => {
    scenario.exportFails = true;
    const out = path.join(dir, 'failed.jsonl');
    const run = await command('export-main.ts', ['--from', siteUrl, '--token', TOKEN, '--out', out, '--poll', '0.02']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Export exp1 failed: disk on fire');
    await expect(stat(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('exits 1 on a refused token', async () => {
    const out = path.join(dir, 'refused.jsonl');
    const run = await command('export-main.ts', [
      '--from',
      siteUrl,
      '--token',
      'wrong',
      '--out',
      out,
      '--poll',
      '0.02',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Invalid login');
  });
});

describe('npm run import', () => {
  const siteFile = async () => {
    const file = path.join(dir, 'site.jsonl');
    const header = {
      type: 'header',
      format: 'stepwise-site',
      format_version: 1,
      created_at: '2026-01-01T00:00:00Z',
      source: { kind: 'export', base_url: null },
    };
    await writeFile(file, `${JSON.stringify(header)}\n{"type":"end","records":1,"counts":{},"objects":0}\n`);
    return file;
  };

  it('creates the job with the options, uploads the file last in the form, starts and waits', async () => {
    const file = await siteFile();
    const run = await command('import-main.ts', [
      '--to',
      `${siteUrl}/api/2.0`,
      '--token',
      TOKEN,
      '--mode',
      'merge',
      '--dry-run',
      '--mail-password-resets',
      '--poll',
      '0.02',
      file,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(scenario.importBody).toEqual({ mode: 'merge', dry_run: true, mail_password_resets: true });
    expect(scenario.uploadFields).toEqual(['key', 'policy', 'x-amz-signature', 'file']);
    expect(scenario.uploadedFile).toBe(await readFile(file, 'utf8'));
    expect(scenario.storageAuthorization).toEqual([undefined]);
    expect(run.stdout).toContain('validated (dry run, nothing written)');
  });

  it('defaults to an empty-site import that writes', async () => {
    const run = await command('import-main.ts', [
      '--to',
      siteUrl,
      '--token',
      TOKEN,
      '--poll',
      '0.02',
      await siteFile(),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(scenario.importBody).toEqual({ mode: 'empty', dry_run: false, mail_password_resets: false });
    expect(run.stdout).toContain('Import imp1 complete');
  });

  it('exits 1 with the report when the import fails', async () => {
    scenario.importFails = true;
    const run = await command('import-main.ts', [
      '--to',
      siteUrl,
      '--token',
      TOKEN,
      '--poll',
      '0.02',
      await siteFile(),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Import imp1 failed: id collisions');
    expect(run.stderr).toContain('"collisions": 2');
  });

  it('refuses a file that is not a site file before any request', async () => {
    const file = path.join(dir, 'notes.txt');
    await writeFile(file, 'hello\n');
    const run = await command('import-main.ts', ['--to', siteUrl, '--token', TOKEN, file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not a site file');
    expect(scenario.apiAuthorization).toEqual([]);
  });
});

describe('the commands refuse a mistake in one line before any job starts', () => {
  /** A port that was free a moment ago: nothing answers there. */
  async function closedPortUrl(): Promise<string> {
    const probe = http.createServer();
    const url = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));
    return url;
  }

  it('--help prints the usage and exits 0', async () => {
    for (const script of ['export-main.ts', 'import-main.ts']) {
      const run = await command(script, ['--help']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Usage: npm run (export|import) -- /);
    }
  });

  it('a --from or --to that is not an http(s) URL names the flag and exits 2', async () => {
    const exported = await command('export-main.ts', ['--from', 'stepwise.example', '--token', TOKEN, '--out', 'x']);
    expect(exported.code).toBe(2);
    expect(exported.stderr.trim()).toBe(
      `--from must be the site's http(s) URL, e.g. https://stepwise.example.com (got "stepwise.example")`,
    );
    const imported = await command('import-main.ts', ['--to', 'ftp://site', '--token', TOKEN, 'site.jsonl']);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toMatch(/^--to must be the site's http\(s\) URL.*\(got "ftp:\/\/site"\)\n$/);
    expect(scenario.apiAuthorization).toEqual([]);
  });

  it('an --out in a missing directory is refused before the export job starts', async () => {
    const out = path.join(dir, 'no-such-folder', 'site.jsonl');
    const run = await command('export-main.ts', ['--from', siteUrl, '--token', TOKEN, '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`--out: the directory ${path.dirname(out)} does not exist; create it first\n`);
    expect(scenario.apiAuthorization).toEqual([]);
  });

  it('a host that does not answer is named at once, by its URL', async () => {
    const nobody = await closedPortUrl();
    const started = Date.now();
    const run = await command('export-main.ts', ['--from', nobody, '--token', TOKEN, '--out', path.join(dir, 'x')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Cannot reach ${nobody}/api/2.0 (ECONNREFUSED): check the URL and the network\n`);
    // No retries with back-off before saying so.
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
