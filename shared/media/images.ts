/**
 * Image work: the sizes of the Image object, edits (crop, then markup drawn as an SVG layer),
 * crops to a ratio, reading an upload, the video poster card. Used by the media processor
 * (functions/pipeline/process-media.ts) and the media group. The sharp calls themselves run in
 * image child processes (image-ops.ts through image-pool.ts, decision 162): bounded in format,
 * pixels, time and concurrency. Bytes that are no accepted format are refused here, before any
 * process is asked.
 */
import { refusalOfFormat, sniffImageFormat } from './image-format.ts';
import type { ImageEdit } from './image-markup.ts';
import {
  type CropRatio,
  ImageRefusedError,
  type ImageJob,
  type RenderedImage,
  type RenderedSize,
} from './image-ops.ts';
import { imagePool, processingLimits } from './image-pool.ts';

export { ACCEPTED_IMAGE_FORMATS, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE } from './image-format.ts';
export { type ImageEdit, InvalidEditError, MARKUP_COLORS, type MarkupShape, markupSvg } from './image-markup.ts';
export { CROP_RATIOS, type CropRatio, ImageRefusedError, type RenderedImage, type RenderedSize } from './image-ops.ts';
export { ImageBusyError } from './image-pool.ts';

/** Structured clone hands Buffers back as Uint8Arrays. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The format from the magic numbers, on the calling thread: refused bytes never reach a decoder. */
function requireAcceptedFormat(input: Uint8Array): void {
  if (sniffImageFormat(input)) return;
  const refusal = refusalOfFormat(input);
  throw new ImageRefusedError(refusal.code, refusal.message);
}

function run<T>(job: ImageJob, limits?: { deadlineMs: number; queueWaitMs: number }): Promise<T> {
  if ('input' in job) requireAcceptedFormat(job.input);
  return imagePool().run<T>(job, limits);
}

function renderedOf(rendered: RenderedImage): RenderedImage {
  return { ...rendered, sizes: rendered.sizes.map((size) => ({ ...size, body: asBuffer(size.body) })) };
}

/**
 * What an uploaded body is, read from its bytes (not its name or Content-Type): the format, then
 * the header's size against the pixel bounds; with `decode` (the default) every pixel is decoded
 * too, so a truncated file is refused as well as a non-image. Throws ImageRefusedError.
 */
export async function inspectImage(
  input: Buffer,
  options: { decode?: boolean } = {},
): Promise<{ width: number; height: number; format: string }> {
  return run({ op: 'inspect', input, decode: options.decode ?? true });
}

/** The upright width and height of an image, as processing records them (EXIF orientation applied). */
export async function imageDimensions(input: Buffer): Promise<{ width: number; height: number }> {
  const { width, height } = await inspectImage(input, { decode: false });
  return { width, height };
}

/**
 * Every size of the Image object, each fitted inside its box without enlarging (JPEG, or PNG
 * with alpha). Processing work: it gets the processing deadline.
 */
export async function renderImageSizes(input: Buffer): Promise<RenderedImage> {
  return renderedOf(await run<RenderedImage>({ op: 'render', input }, processingLimits()));
}

/**
 * One size of the Image object, made on demand from the original (`/igi/` before processing has
 * made it, decision 280): the same bounds as an upload's decode (pixels, deadline, the pool).
 */
export async function renderImageSize(input: Buffer, size: string): Promise<RenderedSize> {
  const rendered = await run<RenderedSize>({ op: 'size', input, size });
  return { ...rendered, body: asBuffer(rendered.body) };
}

/** A video's poster card (16:9) and its sizes: we do not decode video, so the card shows a play symbol. */
export async function renderVideoPoster(): Promise<{ original: Buffer; rendered: RenderedImage }> {
  const poster = await run<{ original: Uint8Array; rendered: RenderedImage }>({ op: 'poster' }, processingLimits());
  return { original: asBuffer(poster.original), rendered: renderedOf(poster.rendered) };
}

/** The upright image cut to the largest centred box of that ratio, in its own format (`format` says which). */
export async function cropImageToRatio(input: Buffer, ratio: CropRatio): Promise<{ body: Buffer; format: string }> {
  const cropped = await run<{ body: Uint8Array; format: string }>({ op: 'crop', input, ratio });
  return { body: asBuffer(cropped.body), format: cropped.format };
}

/** Crops, then draws the markup onto the result; PNG out. InvalidEditError for a crop outside the image. */
export async function editImage(
  input: Buffer,
  edit: ImageEdit,
): Promise<{ body: Buffer; width: number; height: number }> {
  const edited = await run<{ body: Uint8Array; width: number; height: number }>({ op: 'edit', input, edit });
  return { ...edited, body: asBuffer(edited.body) };
}
