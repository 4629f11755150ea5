/** Site export and import over HTTP, against any local stack (the tests start their own). */
import { createHash } from 'node:crypto';
import { ADMIN, apiAt, type ApiResponse, type RequestOptions } from './api.ts';

export interface Site {
  url: string;
  call(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<any>>;
  admin(): Promise<string>;
}

export function siteAt(url: string, credentials = ADMIN): Site {
  let token: Promise<string> | undefined;
  const site: Site = {
    url,
    call: (method, path, options = {}) => apiAt(url, method, path, options),
    admin() {
      token ??= site.call('POST', '/user/token', { body: credentials }).then((response) => {
        if (response.status !== 201) throw new Error(`login at ${url}: ${response.status} ${response.text}`);
        return response.body.authToken as string;
      });
      return token;
    },
  };
  return site;
}

/** Polls a job until it leaves its working statuses. */
export async function untilSettled(site: Site, path: string, working: string[]): Promise<any> {
  const token = await site.admin();
  for (let attempt = 0; attempt < 1200; attempt++) {
    const response = await site.call('GET', path, { token });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text}`);
    if (!working.includes(response.body.status)) return response.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} still working`);
}

/** Runs an export to the end; answers the export view and the site file (the parts joined). */
export async function exportSite(site: Site, body: Record<string, unknown> = {}): Promise<{ view: any; file: Buffer }> {
  const started = await site.call('POST', '/admin/exports', { token: await site.admin(), body });
  if (started.status !== 202) throw new Error(`export: ${started.status} ${started.text}`);
  const view = await untilSettled(site, `/admin/exports/${started.body.exportid}`, ['running']);
  if (view.status !== 'complete') throw new Error(`export ${view.exportid} ${view.status}: ${view.error}`);
  const parts: Buffer[] = [];
  for (const file of [...view.files].sort((a, b) => a.part - b.part)) {
    const response = await fetch(file.url);
    if (!response.ok) throw new Error(`part ${file.part}: ${response.status}`);
    parts.push(Buffer.from(await response.arrayBuffer()));
  }
  return { view, file: Buffer.concat(parts) };
}

export function recordsOf(file: Buffer): any[] {
  return file
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
}

export function fileOf(records: unknown[]): Buffer {
  return Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

/** Creates an import, uploads the file through its presigned form, starts it and waits for the end. */
export async function importSite(
  site: Site,
  file: Buffer,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<any> {
  const auth = token ?? (await site.admin());
  const created = await site.call('POST', '/admin/imports', { token: auth, body });
  if (created.status !== 201) throw new Error(`import: ${created.status} ${created.text}`);
  await uploadSiteFile(created.body.upload, file);
  const started = await site.call('POST', `/admin/imports/${created.body.importid}/start`, { token: auth });
  if (started.status !== 202) throw new Error(`start: ${started.status} ${started.text}`);
  return untilSettled(site, `/admin/imports/${created.body.importid}`, ['validating', 'writing', 'finishing']);
}

export async function uploadSiteFile(upload: { url: string; fields: Record<string, string> }, file: Buffer) {
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
  form.append('file', new Blob([file], { type: 'application/x-ndjson' }), 'site.jsonl');
  const response = await fetch(upload.url, { method: 'POST', body: form });
  if (response.status >= 300) throw new Error(`upload: ${response.status} ${await response.text()}`);
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
