/**
 * The PDF child process (decision 255): pdf-render.ts forks this file (through the pool of
 * shared/media/image-pool.ts) and sends it one guide at a time; it answers the PDF's bytes and
 * its own peak memory, or the error. Killed with SIGKILL when a render overruns its deadline; its
 * heap is limited, so a render past it ends this process, not the function. Deployed, it is a side
 * bundle beside the pages bundle (`#pdf-child`, decision 155).
 */
import type { CurrentRelease } from '../../../shared/db/entities/release.ts';
import type { FullGuideView } from '../../../shared/views/guide-views.ts';
import { guidePdf } from './guide-pdf.ts';

export interface PdfJob {
  op: 'guide-pdf';
  guide: FullGuideView;
  release: CurrentRelease | undefined;
  images: Array<[number, Uint8Array]>;
  now: number;
}

export interface PdfResult {
  bytes: Uint8Array;
  /** The child's peak resident memory so far, in MB, and the render's CPU time (the bench reads them). */
  max_rss_mb: number;
  cpu_ms: number;
}

async function answer(job: PdfJob) {
  try {
    const images = new Map(job.images.map(([id, bytes]) => [id, Buffer.from(bytes)] as const));
    const cpu = process.cpuUsage();
    const bytes = await guidePdf(job.guide, job.release, images, job.now);
    const used = process.cpuUsage(cpu);
    const value: PdfResult = {
      bytes,
      max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      cpu_ms: Math.round((used.user + used.system) / 1000),
    };
    return { ok: true as const, value };
  } catch (error) {
    return { ok: false as const, error: (error as Error).stack ?? String(error) };
  }
}

if (process.send) {
  process.on('message', (job: PdfJob) => {
    void answer(job).then((reply) => process.send?.(reply));
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}
