/**
 * The operators' export and import against a Stepwise site (docs/operations.md): thin clients of
 * the Admin job routes. An export is started, polled until complete, and its parts downloaded in
 * order into one file; an import gets a presigned upload, streams the file to it, is started and
 * polled until it completes, validates (dry run) or fails.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { setTimeout as wait } from 'node:timers/promises';
import { HttpSourceClient } from '../migrate/source-client.ts';
import { uploadFile, type UploadTarget } from './multipart-upload.ts';

export interface JobSite {
  /** The site's URL or its API root (`/api/2.0` is added when missing). */
  baseUrl: string;
  token: string;
  /** Between two status reads. */
  pollMs?: number;
}

/** What the progress display shows while a job runs. */
export interface JobProgress {
  phase: string;
  percent: number;
  /** Bytes moved so far by a download or upload, and their total when known. */
  bytes: number;
  totalBytes: number;
}

export class JobFailedError extends Error {
  constructor(
    message: string,
    readonly status: unknown,
  ) {
    super(message);
    this.name = 'JobFailedError';
  }
}

interface ExportStatus {
  status: 'running' | 'complete' | 'failed';
  percent?: number;
  counts?: Record<string, number>;
  error?: string | null;
  files?: Array<{ part: number; url: string; size: number }>;
}

interface ImportStatus {
  status: 'awaiting_upload' | 'validating' | 'writing' | 'finishing' | 'validated' | 'complete' | 'failed';
  percent?: number;
  report?: unknown;
  error?: string | null;
}

export function apiRootOf(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return /\/api\/2\.0$/.test(trimmed) ? trimmed : `${trimmed}/api/2.0`;
}

function clientOf(site: JobSite): HttpSourceClient {
  return new HttpSourceClient({
    baseUrl: apiRootOf(site.baseUrl),
    token: site.token,
    concurrency: 2,
    ratePerSecond: 20,
  });
}

/** Reads the job's status until `finished` says so; each read is shown as progress. */
async function pollUntil<T extends { status: string; percent?: number }>(
  read: () => Promise<T>,
  finished: (status: T) => boolean,
  pollMs: number,
  progress: JobProgress,
): Promise<T> {
  while (true) {
    const current = await read();
    progress.phase = current.status;
    progress.percent = typeof current.percent === 'number' ? current.percent : progress.percent;
    if (finished(current)) return current;
    await wait(pollMs);
  }
}

export interface ExportResult {
  exportid: string;
  counts: Record<string, number>;
  bytes: number;
  parts: number;
}

/** Exports the site into `out`: written beside it and renamed at the end, so `out` is whole or absent. */
export async function runExport(site: JobSite, out: string, progress: JobProgress): Promise<ExportResult> {
  const client = clientOf(site);
  progress.phase = 'starting';
  // Webhook secrets travel only sealed with the operator's passphrase (decision 167), given in the environment.
  const passphrase = process.env.STEPWISE_SECRETS_PASSPHRASE;
  const started = await client.post<{ exportid: string }>(
    'admin/exports',
    passphrase ? { webhook_secrets_passphrase: passphrase } : {},
  );
  const exportid = String(started.exportid);
  const done = await pollUntil(
    () => client.get<ExportStatus>(`admin/exports/${encodeURIComponent(exportid)}`),
    (status) => status.status === 'complete' || status.status === 'failed',
    site.pollMs ?? 2000,
    progress,
  );
  if (done.status === 'failed')
    throw new JobFailedError(`Export ${exportid} failed: ${done.error ?? 'no reason given'}`, done);
  const files = [...(done.files ?? [])].sort((a, b) => a.part - b.part);
  progress.phase = 'downloading';
  progress.totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  progress.bytes = 0;
  const partial = `${out}.download`;
  const target = await open(partial, 'w');
  try {
    let position = 0;
    for (const file of files) position = await downloadPart(file, target, position, progress);
    await target.truncate(position);
    await target.close();
    if (position !== progress.totalBytes) {
      throw new Error(`The download holds ${position} bytes, the export announced ${progress.totalBytes}`);
    }
    await rename(partial, out);
  } catch (error) {
    await target.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  }
  return { exportid, counts: done.counts ?? {}, bytes: progress.bytes, parts: files.length };
}

const PART_ATTEMPTS = 4;

/**
 * One part, streamed into `target` from `start`; answers where the next part starts. A failed
 * attempt (a dropped connection, a 5xx) starts the part again at the same place. A presigned URL
 * carries its own authorization.
 */
async function downloadPart(
  file: { part: number; url: string },
  target: FileHandle,
  start: number,
  progress: JobProgress,
  attempt = 1,
): Promise<number> {
  const bytesBefore = progress.bytes;
  let position = start;
  try {
    const response = await fetch(file.url);
    if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      let written = 0;
      while (written < chunk.length) {
        written += (await target.write(chunk, written, chunk.length - written, position + written)).bytesWritten;
      }
      position += chunk.length;
      progress.bytes += chunk.length;
    }
    return position;
  } catch (error) {
    if (attempt >= PART_ATTEMPTS) {
      throw new Error(`Downloading part ${file.part} failed after ${attempt} attempts: ${(error as Error).message}`);
    }
    progress.bytes = bytesBefore;
    await wait(1000 * 2 ** (attempt - 1));
    return downloadPart(file, target, start, progress, attempt + 1);
  }
}

export interface ImportOptions {
  mode: 'empty' | 'merge';
  dryRun: boolean;
  mailPasswordResets: boolean;
  /** Merge mode: the file may give accounts Admin (decision 164). */
  allowAdminGrants?: boolean;
  /** Opens webhook secrets the file carries sealed (decision 167). */
  secretsPassphrase?: string;
}

export interface ImportResult {
  importid: string;
  status: 'validated' | 'complete';
  report: unknown;
}

export async function runImport(
  site: JobSite,
  file: string,
  options: ImportOptions,
  progress: JobProgress,
): Promise<ImportResult> {
  const client = clientOf(site);
  progress.phase = 'starting';
  const created = await client.post<{ importid: string; upload: UploadTarget }>('admin/imports', {
    mode: options.mode,
    dry_run: options.dryRun,
    mail_password_resets: options.mailPasswordResets,
    ...(options.allowAdminGrants ? { allow_admin_grants: true } : {}),
    ...(options.secretsPassphrase ? { secrets_passphrase: options.secretsPassphrase } : {}),
  });
  const importid = String(created.importid);
  progress.phase = 'uploading';
  await uploadFile(created.upload, file, (sent, total) => {
    progress.bytes = sent;
    progress.totalBytes = total;
    progress.percent = total > 0 ? (sent / total) * 100 : 100;
  });
  progress.percent = 0;
  await client.post(`admin/imports/${encodeURIComponent(importid)}/start`, {});
  const done = await pollUntil(
    () => client.get<ImportStatus>(`admin/imports/${encodeURIComponent(importid)}`),
    (status) => ['validated', 'complete', 'failed'].includes(status.status),
    site.pollMs ?? 2000,
    progress,
  );
  if (done.status === 'failed')
    throw new JobFailedError(`Import ${importid} failed: ${done.error ?? 'no reason given'}`, done);
  return { importid, status: done.status as ImportResult['status'], report: done.report ?? null };
}
