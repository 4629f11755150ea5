/**
 * The sharp work on uploaded bytes. Runs only inside an image child process
 * (image-child.ts, started by image-pool.ts), never in the API or processor process: a
 * render may not be interrupted from JavaScript, so it runs where it can be killed
 * (decision 162). Every operation first checks the format from the bytes and the pixel bounds
 * from the header, before any pixel is decoded.
 */
import type SharpFactory from 'sharp';
import type { Metadata } from 'sharp';
import { IMAGE_SIZES, POSTER_HEIGHT, POSTER_WIDTH } from '../domain/media.ts';
import { refusalOfFormat, refusalOfSize, MAX_IMAGE_PIXELS, sniffImageFormat } from './image-format.ts';
import { type ImageEdit, InvalidEditError, markupSvg } from './image-markup.ts';

export interface RenderedSize {
  name: string;
  body: Buffer;
  contentType: string;
}

export interface RenderedImage {
  width: number;
  height: number;
  sizes: RenderedSize[];
}

/** The ratios POST /user/media/images?cropToRatio= takes; VARIABLE keeps the image as it is. */
export const CROP_RATIOS = { ONE_ONE: 1, FOUR_THREE: 4 / 3, VARIABLE: null } as const;
export type CropRatio = keyof typeof CROP_RATIOS;

/** What the child is asked to do. Bytes travel as Uint8Array (structured clone). */
export type ImageJob =
  | { op: 'inspect'; input: Uint8Array; decode: boolean }
  | { op: 'render'; input: Uint8Array }
  | { op: 'size'; input: Uint8Array; size: string }
  | { op: 'crop'; input: Uint8Array; ratio: CropRatio }
  | { op: 'edit'; input: Uint8Array; edit: ImageEdit }
  | { op: 'poster' };

/** An image refused for what it is (422 on an upload, `failed` in processing). */
export class ImageRefusedError extends Error {
  constructor(
    readonly code: 'unsupported_format' | 'not_an_image' | 'too_many_pixels' | 'too_slow_to_decode',
    message: string,
  ) {
    super(message);
    this.name = 'ImageRefusedError';
  }
}

let sharpLoading: Promise<typeof SharpFactory> | undefined;

/**
 * sharp loads its native library on first use. Its operation cache is off: it keeps decoded
 * images and open inputs for reuse, and no two jobs here share an input, so it only held
 * memory (up to 50 MB per process) after a job. One libvips thread per image: the pool runs
 * jobs side by side, and a job that may use every core makes its neighbours miss their deadline.
 */
function loadSharp(): Promise<typeof SharpFactory> {
  sharpLoading ??= import('sharp').then((module) => {
    module.default.cache(false);
    module.default.concurrency(1);
    return module.default;
  });
  return sharpLoading;
}

/** Loads sharp, so a fresh child's first job is not charged for it (the deadline is for decoding). */
export async function warmUp(): Promise<void> {
  await loadSharp();
}

const bytesOf = (input: Uint8Array) => Buffer.from(input.buffer, input.byteOffset, input.byteLength);

interface Checked {
  sharp: typeof SharpFactory;
  input: Buffer;
  format: string;
  /** Upright (EXIF orientation applied). */
  width: number;
  height: number;
  hasAlpha: boolean;
}

/** The format from the magic numbers, then the header's size against the bounds: nothing decoded yet. */
async function checked(raw: Uint8Array): Promise<Checked> {
  const input = bytesOf(raw);
  const format = sniffImageFormat(input);
  if (!format) {
    const refusal = refusalOfFormat(input);
    throw new ImageRefusedError(refusal.code, refusal.message);
  }
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    metadata = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new ImageRefusedError('not_an_image', `Not a readable image: ${(error as Error).message}`);
  }
  if (!metadata.width || !metadata.height || metadata.format !== format) {
    throw new ImageRefusedError('not_an_image', `Not a readable ${format} image`);
  }
  const refusal = refusalOfSize(metadata.width, metadata.height);
  if (refusal) throw new ImageRefusedError(refusal.code, refusal.message);
  const swapped = (metadata.orientation ?? 1) >= 5; // EXIF 5-8 are rotated by 90 degrees
  return {
    sharp,
    input,
    format,
    width: swapped ? metadata.height : metadata.width,
    height: swapped ? metadata.width : metadata.height,
    hasAlpha: Boolean(metadata.hasAlpha),
  };
}

/** Decoding stops past the pixel bound whatever the header said (sharp's own check, a second guard). */
function open(image: Checked, failOn: 'error' | 'truncated' = 'error') {
  // rotate(): apply the EXIF orientation, so a phone photo is upright in every size.
  return image.sharp(image.input, { limitInputPixels: MAX_IMAGE_PIXELS, failOn }).rotate();
}

/** Operations on pixels: a decoder's complaint is the image's fault. */
async function decoding<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ImageRefusedError || error instanceof InvalidEditError) throw error;
    throw new ImageRefusedError('not_an_image', `Not a readable image: ${(error as Error).message}`);
  }
}

/**
 * What an uploaded body is. With `decode`, every pixel is decoded (to a 1x1 result, so nothing
 * large is kept), so a truncated file is refused as well as a non-image.
 */
async function inspect(raw: Uint8Array, decode: boolean) {
  const image = await checked(raw);
  if (decode) await decoding(() => open(image, 'truncated').resize(1, 1, { fit: 'fill' }).raw().toBuffer());
  return { width: image.width, height: image.height, format: image.format };
}

/**
 * Every size of the Image object, each fitted inside its box without enlarging. JPEG unless
 * the image has transparency (PNG then), so a logo keeps its alpha channel.
 */
async function render(image: Checked): Promise<RenderedImage> {
  const sizes: RenderedSize[] = [];
  for (const size of IMAGE_SIZES) sizes.push(await renderSize(image, size));
  return { width: image.width, height: image.height, sizes };
}

/** One size of the Image object, fitted inside its box without enlarging (JPEG, or PNG with alpha). */
async function renderSize(image: Checked, size: (typeof IMAGE_SIZES)[number]): Promise<RenderedSize> {
  const resized = open(image).resize(size.width, size.height, { fit: 'inside', withoutEnlargement: true });
  const body = await decoding(() =>
    image.hasAlpha
      ? resized.png().toBuffer()
      : resized.flatten({ background: '#ffffff' }).jpeg({ quality: 85, mozjpeg: true }).toBuffer(),
  );
  return { name: size.name, body, contentType: image.hasAlpha ? 'image/png' : 'image/jpeg' };
}

/** One named size (`/igi/<guid>.<size>` asked for before processing made it: decision 280). */
async function oneSize(raw: Uint8Array, name: string): Promise<RenderedSize> {
  const size = IMAGE_SIZES.find((candidate) => candidate.name === name);
  if (!size) throw new Error(`Unknown image size ${name}`);
  return renderSize(await checked(raw), size);
}

/** The upright image cut to the largest centred box of that ratio, in its own format. */
async function crop(raw: Uint8Array, ratio: CropRatio): Promise<{ body: Buffer; format: string }> {
  const image = await checked(raw);
  const target = CROP_RATIOS[ratio];
  if (target === null) return { body: image.input, format: image.format };
  const boxWidth = Math.min(image.width, Math.round(image.height * target));
  const boxHeight = Math.min(image.height, Math.round(image.width / target));
  const body = await decoding(async () =>
    image
      .sharp(await open(image).toBuffer(), { limitInputPixels: MAX_IMAGE_PIXELS })
      .extract({
        left: Math.floor((image.width - boxWidth) / 2),
        top: Math.floor((image.height - boxHeight) / 2),
        width: boxWidth,
        height: boxHeight,
      })
      .toFormat(image.format as 'jpeg' | 'png' | 'gif' | 'webp')
      .toBuffer(),
  );
  return { body, format: image.format };
}

/** Crops, then draws the markup onto the result; PNG out, so the drawing stays sharp. */
async function edit(raw: Uint8Array, edit: ImageEdit): Promise<{ body: Buffer; width: number; height: number }> {
  const image = await checked(raw);
  const { sharp, width, height } = image;
  return decoding(async () => {
    let pipeline = open(image);
    let outWidth = width;
    let outHeight = height;
    if (edit.crop) {
      const { x, y, width: w, height: h } = edit.crop;
      if (x + w > width || y + h > height) {
        throw new InvalidEditError('crop', `The crop (${x},${y} ${w}x${h}) leaves the ${width}x${height} image`);
      }
      // rotate() and extract() in one pipeline would extract first; materialise the upright image.
      pipeline = sharp(await pipeline.toBuffer(), { limitInputPixels: MAX_IMAGE_PIXELS }).extract({
        left: x,
        top: y,
        width: w,
        height: h,
      });
      outWidth = w;
      outHeight = h;
    }
    if (edit.markup?.length) {
      const svg = markupSvg(edit.markup, outWidth, outHeight);
      pipeline = sharp(await pipeline.toBuffer(), { limitInputPixels: MAX_IMAGE_PIXELS }).composite([
        { input: Buffer.from(svg), top: 0, left: 0 },
      ]);
    }
    return { body: await pipeline.png().toBuffer(), width: outWidth, height: outHeight };
  });
}

/** A video's poster card (16:9): we do not decode video, so the card shows a play symbol. */
async function poster(): Promise<{ original: Buffer; rendered: RenderedImage }> {
  const sharp = await loadSharp();
  const [w, h] = [POSTER_WIDTH, POSTER_HEIGHT];
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="${w}" height="${h}" fill="#1f2933"/><circle cx="${w / 2}" cy="${h / 2}" r="${h / 6}" ` +
    `fill="#ffffff" fill-opacity="0.9"/>` +
    `<path d="M${w / 2 - 40},${h / 2 - 70} L${w / 2 + 80},${h / 2} L${w / 2 - 40},${h / 2 + 70} z" ` +
    `fill="#1f2933"/></svg>`;
  // Our own SVG, rasterised to PNG before it goes the way of any upload.
  const original = await sharp(Buffer.from(svg)).png().toBuffer();
  return { original, rendered: await render(await checked(original)) };
}

/** Runs one job; what it resolves to travels back to the caller by structured clone. */
export async function runImageJob(job: ImageJob): Promise<unknown> {
  switch (job.op) {
    case 'inspect':
      return inspect(job.input, job.decode);
    case 'render':
      return render(await checked(job.input));
    case 'size':
      return oneSize(job.input, job.size);
    case 'crop':
      return crop(job.input, job.ratio);
    case 'edit':
      return edit(job.input, job.edit);
    case 'poster':
      return poster();
    default:
      throw new Error(`Unknown image job ${(job as { op: string }).op}`);
  }
}
