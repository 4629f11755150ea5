/**
 * The images a guide's PDF shows, as bytes a PDF can hold. Each is read at the `medium` size
 * from the media bucket (the same object /igi/ serves); sizes are JPEG or PNG as made, but an
 * object in any other format (WebP, GIF: an older or imported image) is converted to PNG with
 * sharp, which is loaded only then. An image that cannot be read is left out, not fatal.
 */
import { sniffImageFormat } from '../../../shared/media/image-format.ts';
import { imageObjectKey, mediaBucket } from '../../../shared/storage/media-objects.ts';
import { getObjectIfExists } from '../../../shared/storage/objects.ts';
import type { FullGuideView } from '../../../shared/views/guide-views.ts';
import type { PdfImages } from './guide-pdf.ts';

const PDF_IMAGE_SIZE = 'medium';
/** A medium size is well under this; anything larger is not what the size pipeline made. */
const PDF_IMAGE_MAX_BYTES = 8 * 1024 * 1024;

/** JPEG and PNG go in as they are; anything else becomes PNG. */
export async function pdfImageBytes(bytes: Buffer): Promise<Buffer | undefined> {
  const format = sniffImageFormat(bytes);
  if (format === 'jpeg' || format === 'png') return bytes;
  if (!format) return undefined;
  const { default: sharp } = await import('sharp');
  // The first frame of an animation: a page holds a still picture.
  return sharp(bytes, { animated: false, limitInputPixels: 50_000_000 }).png().toBuffer();
}

function shownImages(guide: FullGuideView): Array<{ id: number; guid: string }> {
  const images = [guide.image, ...guide.steps.flatMap((step) => (step.media.type === 'image' ? step.media.data : []))];
  const seen = new Set<number>();
  return images.flatMap((image) => {
    if (!image?.guid || seen.has(image.id)) return [];
    seen.add(image.id);
    return [{ id: image.id, guid: image.guid }];
  });
}

export async function loadPdfImages(guide: FullGuideView): Promise<PdfImages> {
  const loaded = await Promise.all(
    shownImages(guide).map(async (image) => {
      try {
        const object = await getObjectIfExists(
          mediaBucket(),
          imageObjectKey(image.guid, PDF_IMAGE_SIZE),
          PDF_IMAGE_MAX_BYTES,
        );
        const bytes = object ? await pdfImageBytes(object.bytes) : undefined;
        return bytes ? ([image.id, bytes] as const) : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return new Map(loaded.filter((entry) => entry !== undefined));
}
