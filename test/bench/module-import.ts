/**
 * Bench section: one import of a ~50 MB generated SCORM package through the real local
 * pipeline (presigned upload to the S3 emulator, then the import state machine: await, inspect,
 * validate, extract to S3, record). Prints the time of each phase and the stack process's peak
 * resident memory while the pipeline ran, plus the bundle size of every pipeline function.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { moduleImportTasks } from '../../functions/pipeline/module-import.definition.ts';
import { objectCreatedTriggers } from '../../functions/pipeline/triggers.ts';
import type { RunningStack } from '../support/local-stack-process.ts';
import { largePackage } from '../support/module-packages.ts';

const PACKAGE_MB = Number(process.env.BENCH_MODULE_MB ?? 50);

/** Resident memory of a process in MB (Linux /proc); undefined elsewhere. */
function residentMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every 20 ms until stopped; answers the level at start and the peak. */
function watchMemory(pid: number) {
  const start = residentMb(pid) ?? 0;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, residentMb(pid) ?? 0)), 20);
  return {
    stop: () => {
      clearInterval(timer);
      return { start, peak };
    },
  };
}

async function call(stack: RunningStack, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: { authorization: `api ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function pipelineBundleSizes() {
  const entries = [
    ...moduleImportTasks.map((task) => ({
      name: `pipeline: ${task.stateName}`,
      entry: task.entry,
      external: [] as string[],
    })),
    ...objectCreatedTriggers.map((trigger) => ({
      name: `trigger: ${trigger.name}`,
      entry: trigger.entry,
      external: trigger.nodeModules,
    })),
  ];
  const sizes = [];
  for (const { name, entry, external } of entries) {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      external: ['@aws-sdk/*', ...external],
      write: false,
      logLevel: 'silent',
    });
    sizes.push({
      function: name,
      KB: (result.outputFiles[0]!.contents.byteLength / 1024).toFixed(1),
      'within aim': result.outputFiles[0]!.contents.byteLength <= 300 * 1024 ? 'yes' : 'NO',
    });
  }
  return sizes;
}

export async function moduleImportBench(stack: RunningStack, token: string): Promise<void> {
  const zip = await largePackage(PACKAGE_MB);
  const pid = stack.child.pid!;
  const baseline = residentMb(pid);

  const created = await call(stack, token, 'POST', '/external_training_modules/imports', { title: 'Bench module' });
  const started = await call(
    stack,
    token,
    'POST',
    `/external_training_modules/imports/${created.body.importid}/start/byUpload`,
  );
  const form = new FormData();
  for (const [name, value] of Object.entries(started.body.upload.fields as Record<string, string>))
    form.append(name, value);
  form.append('file', new Blob([zip], { type: 'application/zip' }), 'bench.zip');

  const uploadMemory = watchMemory(pid);
  const uploadStart = performance.now();
  const uploaded = await fetch(started.body.upload.url, { method: 'POST', body: form });
  const uploadMs = performance.now() - uploadStart;
  const uploadPeak = uploadMemory.stop();
  if (uploaded.status !== 204) throw new Error(`bench upload answered ${uploaded.status}`);

  const pipelineMemory = watchMemory(pid);
  const pipelineStart = performance.now();
  let progress: Awaited<ReturnType<typeof call>>;
  do {
    await new Promise((resolve) => setTimeout(resolve, 50));
    progress = await call(stack, token, 'GET', `/external_training_modules/imports/${created.body.importid}/progress`);
  } while (['created', 'running'].includes(progress.body.status));
  const pipelineMs = performance.now() - pipelineStart;
  const pipelinePeak = pipelineMemory.stop();
  const versions = await call(stack, token, 'GET', `/external_training_modules/${created.body.moduleid}/imports`);
  const version = versions.body.imports[0];

  console.log(
    `\nModule import of a ${(zip.length / 1024 / 1024).toFixed(1)} MB SCORM package (${version.file_count} ` +
      `files) through the local pipeline: ${progress.body.status}`,
  );
  console.table([
    {
      phase: 'browser upload to the S3 emulator (presigned POST)',
      seconds: (uploadMs / 1000).toFixed(2),
      'RSS at start MB': uploadPeak.start.toFixed(0),
      'peak RSS MB': uploadPeak.peak.toFixed(0),
    },
    {
      phase: 'pipeline: await, inspect, validate, extract to S3, record',
      seconds: (pipelineMs / 1000).toFixed(2),
      'RSS at start MB': pipelinePeak.start.toFixed(0),
      'peak RSS MB': pipelinePeak.peak.toFixed(0),
    },
  ]);
  console.log(
    `Resident memory of the whole local stack process (gateway, S3 emulator, Step Functions runner, every ` +
      `handler); ${baseline?.toFixed(0) ?? '?'} MB before the import.` +
      ' The pipeline streams (1 MiB ranged reads, 5 MiB upload parts), so what it adds over its start does ' +
      'not grow with the package (BENCH_MODULE_MB=200 to check);' +
      ' the upload phase includes the emulator proxy holding the form while it checks the policy.',
  );
  console.log('\nPipeline function bundle sizes (minified ESM, AWS SDK and native modules external; aim <= 300 KB)');
  console.table(await pipelineBundleSizes());
}
