/**
 * `GET <guide url>.pdf`: the PDF in the answer, or, when it is too large for a Lambda answer
 * (6 MB, base64 adds a third), redirected to in the media bucket with a short-lived presigned
 * URL. Every PDF made is kept there under the digest of what it shows (pdf-render.ts, decision
 * 255), read back by the next GET of the same content: unguessable without that content, so no
 * reader reaches a PDF built for another's access. `X-Stepwise-Pdf` says `rendered` or `kept`.
 */
import { nowSeconds } from '../../../shared/clock.ts';
import { config } from '../../../shared/config.ts';
import type { Caller } from '../../../shared/domain/caller.ts';
import type { CurrentRelease } from '../../../shared/db/entities/release.ts';
import { rawReply, reply, type Reply } from '../../../shared/http/route.ts';
import { mediaBucket } from '../../../shared/storage/media-objects.ts';
import { getObjectIfExists, objectSize, presignedGetUrl, putObject } from '../../../shared/storage/objects.ts';
import type { FullGuideView } from '../../../shared/views/guide-views.ts';
import { pageHeaders } from '../html/page-reply.ts';
import { loadPdfImages } from './pdf-images.ts';
import { keptPdfKey, renderPdf } from './pdf-render.ts';

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
  const now = nowSeconds();
  const key = keptPdfKey(guide, release, new Date(now * 1000).toISOString().slice(0, 10));
  const disposition = `inline; filename="${fileName(guide).replace(/[^\x20-\x7e]|["\\]/g, '_')}"`;
  const inlineMax = config().STEPWISE_PDF_INLINE_MAX_BYTES;
  const keptSize = await objectSize(mediaBucket(), key);
  let bytes: Buffer | undefined;
  if (keptSize === undefined) {
    bytes = (await renderPdf(guide, release, await loadPdfImages(guide), now)).bytes as Buffer;
    await putObject(mediaBucket(), key, bytes, 'application/pdf');
  } else if (keptSize <= inlineMax) {
    bytes = (await getObjectIfExists(mediaBucket(), key, inlineMax))?.bytes;
  }
  const headers = { ...pageHeaders(caller), 'x-stepwise-pdf': keptSize === undefined ? 'rendered' : 'kept' };
  if (bytes && bytes.length <= inlineMax) {
    return rawReply(200, bytes, 'application/pdf', { ...headers, 'content-disposition': disposition });
  }
  const location = await presignedGetUrl(mediaBucket(), key, PDF_URL_SECONDS, fileName(guide));
  return reply(302, undefined, { location, ...headers });
}
