/**
 * A guide's PDF, made once per content and kept (decision 255). The render runs in a child
 * process (pdf-child.ts) from a small pool like the image decoder's (shared/media/image-pool.ts):
 * with a deadline (STEPWISE_PDF_DEADLINE_MS, the child killed past it) and a V8 heap limit
 * (STEPWISE_PDF_HEAP_MB), so one guide can neither hold the function nor take it down; either
 * answers 503. Made PDFs are kept in the media bucket under `pdf/<guideid>/<digest>.pdf`, the
 * digest of everything the PDF shows (the full guide view as this reader may see it, its release,
 * the print day, the renderer's version): the next GET of the same content, whatever the title
 * part of its URL, reads it back instead of drawing again. The bucket expires `pdf/` after a day.
 */
import { createHash } from 'node:crypto';
import { config } from '../../../shared/config.ts';
import type { CurrentRelease } from '../../../shared/db/entities/release.ts';
import { ServiceUnavailableError } from '../../../shared/domain/errors.ts';
import { ImageBusyError, ImagePool } from '../../../shared/media/image-pool.ts';
import { MEDIA_PDF_PREFIX } from '../../../shared/storage/media-objects.ts';
import type { FullGuideView } from '../../../shared/views/guide-views.ts';
import type { PdfJob, PdfResult } from './pdf-child.ts';
import type { PdfImages } from './guide-pdf.ts';

/** The child's entry (package.json "imports"; a side bundle when deployed). */
export const PDF_CHILD_IMPORT = '#pdf-child';
/** Bumped when the drawing changes, so kept PDFs of the old drawing are not served. */
const RENDER_VERSION = 2;
/** Renders at once per container, and how long one waits for a slot before 503. */
const PDF_CONCURRENCY = 2;
const PDF_QUEUE_MS = 10_000;

class PdfTooCostly extends ServiceUnavailableError {}

let pool: ImagePool | undefined;

function pdfPool(): ImagePool {
  const { STEPWISE_PDF_DEADLINE_MS: deadlineMs, STEPWISE_PDF_HEAP_MB: heapMb } = config();
  pool ??= new ImagePool({
    concurrency: PDF_CONCURRENCY,
    queueWaitMs: PDF_QUEUE_MS,
    deadlineMs,
    entry: PDF_CHILD_IMPORT,
    heapMb,
    failures: {
      stopped: () =>
        new PdfTooCostly(`The PDF could not be made within ${heapMb} MB; read the guide online, or try again later`),
      overran: (ms) =>
        new PdfTooCostly(`The PDF could not be made within ${ms} ms; read the guide online, or try again later`),
    },
  });
  return pool;
}

/** Where the PDF of exactly this content is kept. */
export function keptPdfKey(guide: FullGuideView, release: CurrentRelease | undefined, day: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify({ version: RENDER_VERSION, guide, release: release ?? null, day }))
    .digest('hex')
    .slice(0, 40);
  return `${MEDIA_PDF_PREFIX}${guide.guideid}/${digest}.pdf`;
}

/** Draws the PDF in a child process; ServiceUnavailableError (503) past its time or memory. */
export async function renderPdf(
  guide: FullGuideView,
  release: CurrentRelease | undefined,
  images: PdfImages,
  now: number,
): Promise<PdfResult> {
  const job: PdfJob = { op: 'guide-pdf', guide, release, images: [...images.entries()], now };
  try {
    const result = await pdfPool().run<PdfResult, PdfJob>(job);
    return { ...result, bytes: Buffer.from(result.bytes) };
  } catch (error) {
    if (error instanceof ImageBusyError) {
      throw new ServiceUnavailableError('Every PDF render is busy; try again shortly');
    }
    throw error;
  }
}
