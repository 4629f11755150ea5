/**
 * `GET <guide url>.pdf`: the PDF in the answer, or, when it is too large for a Lambda answer
 * (6 MB, base64 adds a third), written to the media bucket under `pdf/` and redirected to with a
 * short-lived presigned URL. The key is the PDF's own digest: unguessable without the PDF, so
 * no reader reaches a PDF built for another's access.
 */
import { createHash } from 'node:crypto';
import { nowSeconds } from '../../../shared/clock.ts';
import { config } from '../../../shared/config.ts';
import type { Caller } from '../../../shared/domain/caller.ts';
import type { CurrentRelease } from '../../../shared/db/entities/release.ts';
import { rawReply, reply, type Reply } from '../../../shared/http/route.ts';
import { MEDIA_PDF_PREFIX, mediaBucket } from '../../../shared/storage/media-objects.ts';
import { presignedGetUrl, putObject } from '../../../shared/storage/objects.ts';
import type { FullGuideView } from '../../../shared/views/guide-views.ts';
import { pageHeaders } from '../html/page-reply.ts';
import { guidePdf } from './guide-pdf.ts';
import { loadPdfImages } from './pdf-images.ts';

const PDF_URL_SECONDS = 300;

function fileName(guide: FullGuideView): string {
  const base =
    guide.title
      .replace(/[^\p{L}\p{N} _-]+/gu, '')
      .trim()
      .replace(/\s+/g, '-') || `guide-${guide.guideid}`;
  return `${base.slice(0, 80)}.pdf`;
}

export async function guidePdfReply(
  caller: Caller | null,
  guide: FullGuideView,
  release: CurrentRelease | undefined,
): Promise<Reply> {
  const bytes = await guidePdf(guide, release, await loadPdfImages(guide), nowSeconds());
  const disposition = `inline; filename="${fileName(guide).replace(/[^\x20-\x7e]|["\\]/g, '_')}"`;
  if (bytes.length <= config().STEPWISE_PDF_INLINE_MAX_BYTES) {
    return rawReply(200, bytes, 'application/pdf', { ...pageHeaders(caller), 'content-disposition': disposition });
  }
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  const key = `${MEDIA_PDF_PREFIX}${guide.guideid}/${digest}.pdf`;
  await putObject(mediaBucket(), key, bytes, 'application/pdf');
  const location = await presignedGetUrl(mediaBucket(), key, PDF_URL_SECONDS, fileName(guide));
  return reply(302, undefined, { location, ...pageHeaders(caller) });
}
