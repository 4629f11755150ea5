/** Helpers for module import tests: create an import, upload its package to S3, wait for the pipeline. */
import { expect } from 'vitest';
import { api } from './api.ts';

export async function createImport(token: string, body: Record<string, unknown> = {}) {
  const response = await api('POST', '/external_training_modules/imports', { token, body });
  if (response.status !== 201) throw new Error(`createImport: ${response.status} ${response.text}`);
  return response.body as { importid: number; moduleid: number; provider_version_number: number };
}

/** start/byUpload, then the browser's part: POST the zip to the presigned target. */
export async function uploadPackage(token: string, importid: number, zip: Buffer): Promise<number> {
  const started = await api('POST', `/external_training_modules/imports/${importid}/start/byUpload`, { token });
  expect(started.status, started.text).toBe(200);
  const form = new FormData();
  for (const [name, value] of Object.entries(started.body.upload.fields as Record<string, string>))
    form.append(name, value);
  form.append('file', new Blob([zip], { type: 'application/zip' }), 'package.zip');
  const response = await fetch(started.body.upload.url, { method: 'POST', body: form });
  return response.status;
}

/** Polls progress until the import has finished one way or the other. */
export async function finished(token: string, importid: number, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const progress = await api('GET', `/external_training_modules/imports/${importid}/progress`, { token });
    expect(progress.status, progress.text).toBe(200);
    if (!['created', 'running'].includes(progress.body.status)) return progress.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${importid} still running`);
}

/** One import of a package, start to finish; answers the import's final progress. */
export async function importPackage(token: string, zip: Buffer, body: Record<string, unknown> = {}) {
  const created = await createImport(token, body);
  expect(await uploadPackage(token, created.importid, zip)).toBe(204);
  return { ...created, result: await finished(token, created.importid) };
}
