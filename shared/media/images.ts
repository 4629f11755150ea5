/**
 * Image work with sharp: the sizes of the Image object, and edits (crop, then markup drawn as
 * an SVG layer). Used by the media processor (functions/pipeline/process-media.ts) and by
 * POST /user/media/images/edits.
 */
import type SharpFactory from 'sharp';
import { IMAGE_SIZES, POSTER_HEIGHT, POSTER_WIDTH } from '../domain/media.ts';

/** Decoding stops past this many pixels (a decompression bomb would otherwise fill memory). */
const MAX_INPUT_PIXELS = 12_000 * 12_000;

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

export class UnreadableImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableImageError';
  }
}

let sharpLoading: Promise<typeof SharpFactory> | undefined;

/** sharp loads its native library on first use: the API process starts without it. */
function loadSharp(): Promise<typeof SharpFactory> {
  sharpLoading ??= import('sharp').then((module) => module.default);
  return sharpLoading;
}

async function open(input: Buffer) {
  const sharp = await loadSharp();
  // rotate(): apply the EXIF orientation, so a phone photo is upright in every size.
  return sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' }).rotate();
}

async function metadataOf(input: Buffer): Promise<{ width: number; height: number; hasAlpha: boolean }> {
  const sharp = await loadSharp();
  try {
    const metadata = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    if (!metadata.width || !metadata.height) throw new Error('no dimensions');
    const swapped = (metadata.orientation ?? 1) >= 5; // EXIF 5-8 are rotated by 90 degrees
    return {
      width: swapped ? metadata.height : metadata.width,
      height: swapped ? metadata.width : metadata.height,
      hasAlpha: Boolean(metadata.hasAlpha),
    };
  } catch (error) {
    throw new UnreadableImageError(`Not a readable image: ${(error as Error).message}`);
  }
}

/** The upright width and height of an image, as processing records them (EXIF orientation applied). */
export async function imageDimensions(input: Buffer): Promise<{ width: number; height: number }> {
  const { width, height } = await metadataOf(input);
  return { width, height };
}

/**
 * Every size of the Image object, each fitted inside its box without enlarging. JPEG unless
 * the image has transparency (PNG then), so a logo keeps its alpha channel.
 */
export async function renderImageSizes(input: Buffer): Promise<RenderedImage> {
  const { width, height, hasAlpha } = await metadataOf(input);
  const sizes: RenderedSize[] = [];
  for (const size of IMAGE_SIZES) {
    const resized = (await open(input)).resize(size.width, size.height, { fit: 'inside', withoutEnlargement: true });
    const body = hasAlpha
      ? await resized.png().toBuffer()
      : await resized.flatten({ background: '#ffffff' }).jpeg({ quality: 85, mozjpeg: true }).toBuffer();
    sizes.push({ name: size.name, body, contentType: hasAlpha ? 'image/png' : 'image/jpeg' });
  }
  return { width, height, sizes };
}

/** A video's poster card (16:9): we do not decode video, so the card shows a play symbol. */
export async function renderVideoPoster(): Promise<{ original: Buffer; rendered: RenderedImage }> {
  const sharp = await loadSharp();
  const [w, h] = [POSTER_WIDTH, POSTER_HEIGHT];
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="${w}" height="${h}" fill="#1f2933"/><circle cx="${w / 2}" cy="${h / 2}" r="${h / 6}" ` +
    `fill="#ffffff" fill-opacity="0.9"/>` +
    `<path d="M${w / 2 - 40},${h / 2 - 70} L${w / 2 + 80},${h / 2} L${w / 2 - 40},${h / 2 + 70} z" ` +
    `fill="#1f2933"/></svg>`;
  const original = await sharp(Buffer.from(svg)).png().toBuffer();
  return { original, rendered: await renderImageSizes(original) };
}

/**
 * What an uploaded body is, read from its bytes (not its name or Content-Type): sharp reads the
 * header, then decodes every pixel, so a truncated file is refused as well as a non-image.
 */
export async function inspectImage(input: Buffer): Promise<{ width: number; height: number; format: string }> {
  const { width, height } = await metadataOf(input);
  const sharp = await loadSharp();
  try {
    const metadata = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'truncated' }).metadata();
    await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'truncated' }).stats();
    return { width, height, format: metadata.format ?? 'unknown' };
  } catch (error) {
    throw new UnreadableImageError(`Not a readable image: ${(error as Error).message}`);
  }
}

/** The ratios POST /user/media/images?cropToRatio= takes; VARIABLE keeps the image as it is. */
export const CROP_RATIOS = { ONE_ONE: 1, FOUR_THREE: 4 / 3, VARIABLE: null } as const;
export type CropRatio = keyof typeof CROP_RATIOS;

/** Formats sharp writes back as they came; anything else (BMP) is written as PNG. */
const KEPT_FORMATS = ['jpeg', 'png', 'webp', 'gif', 'tiff'] as const;
type KeptFormat = (typeof KEPT_FORMATS)[number];

/**
 * The upright image cut to the largest centred box of that ratio, in its own format where sharp
 * can write it (PNG otherwise: `format` says which).
 */
export async function cropImageToRatio(input: Buffer, ratio: CropRatio): Promise<{ body: Buffer; format: string }> {
  const target = CROP_RATIOS[ratio];
  const { width, height } = await metadataOf(input);
  const sharp = await loadSharp();
  const format = (await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata()).format ?? 'png';
  const outFormat: KeptFormat = (KEPT_FORMATS as readonly string[]).includes(format) ? (format as KeptFormat) : 'png';
  if (target === null) return { body: input, format };
  const boxWidth = Math.min(width, Math.round(height * target));
  const boxHeight = Math.min(height, Math.round(width / target));
  const upright = await (await open(input)).toBuffer();
  const body = await sharp(upright, { limitInputPixels: MAX_INPUT_PIXELS })
    .extract({
      left: Math.floor((width - boxWidth) / 2),
      top: Math.floor((height - boxHeight) / 2),
      width: boxWidth,
      height: boxHeight,
    })
    .toFormat(outFormat)
    .toBuffer();
  return { body, format: outFormat };
}

export const MARKUP_COLORS: Record<string, string> = {
  red: '#e8352e',
  orange: '#f7941d',
  yellow: '#ffd200',
  green: '#43b649',
  blue: '#1c75bc',
  light_blue: '#27aae1',
  violet: '#8e4f9e',
  black: '#000000',
  white: '#ffffff',
};

interface Stroke {
  /** A name of MARKUP_COLORS or #rrggbb. */
  color: string;
  stroke_width?: number;
}
export type MarkupShape =
  | ({ shape: 'rectangle'; x: number; y: number; width: number; height: number } & Stroke)
  | ({ shape: 'circle'; x: number; y: number; radius: number } & Stroke)
  | ({ shape: 'line' | 'arrow'; from: { x: number; y: number }; to: { x: number; y: number } } & Stroke);

export interface ImageEdit {
  /** In pixels of the (upright) original. */
  crop?: { x: number; y: number; width: number; height: number };
  /** In pixels of the cropped image. */
  markup?: MarkupShape[];
}

export class InvalidEditError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidEditError';
  }
}

/** Crops, then draws the markup onto the result; PNG out, so the drawing stays sharp. */
export async function editImage(
  input: Buffer,
  edit: ImageEdit,
): Promise<{ body: Buffer; width: number; height: number }> {
  const { width, height } = await metadataOf(input);
  const sharp = await loadSharp();
  let image = await open(input);
  let outWidth = width;
  let outHeight = height;
  if (edit.crop) {
    const { x, y, width: w, height: h } = edit.crop;
    if (x + w > width || y + h > height) {
      throw new InvalidEditError('crop', `The crop (${x},${y} ${w}x${h}) leaves the ${width}x${height} image`);
    }
    // rotate() and extract() in one pipeline would extract first; materialise the upright image.
    image = sharp(await image.toBuffer(), { limitInputPixels: MAX_INPUT_PIXELS }).extract({
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
    image = sharp(await image.toBuffer(), { limitInputPixels: MAX_INPUT_PIXELS }).composite([
      { input: Buffer.from(svg), top: 0, left: 0 },
    ]);
  }
  return { body: await image.png().toBuffer(), width: outWidth, height: outHeight };
}

function colorOf(name: string): string {
  return MARKUP_COLORS[name] ?? name;
}

/** The markup as one SVG the size of the image; numbers only come from validated input. */
export function markupSvg(shapes: MarkupShape[], width: number, height: number): string {
  const parts = shapes.map((shape, index) => {
    const color = colorOf(shape.color);
    const strokeWidth = shape.stroke_width ?? Math.max(2, Math.round(Math.min(width, height) / 100));
    const stroke = `fill="none" stroke="${color}" stroke-width="${strokeWidth}"`;
    switch (shape.shape) {
      case 'rectangle':
        return `<rect x="${shape.x}" y="${shape.y}" width="${shape.width}" height="${shape.height}" ${stroke}/>`;
      case 'circle':
        return `<circle cx="${shape.x}" cy="${shape.y}" r="${shape.radius}" ${stroke}/>`;
      case 'line':
        return `<line x1="${shape.from.x}" y1="${shape.from.y}" x2="${shape.to.x}" y2="${shape.to.y}" ${stroke}/>`;
      case 'arrow': {
        const id = `head${index}`;
        return (
          `<defs><marker id="${id}" markerWidth="4" markerHeight="4" refX="2" refY="2" orient="auto" ` +
          `markerUnits="strokeWidth">` +
          `<path d="M0,0 L4,2 L0,4 z" fill="${color}"/></marker></defs>` +
          `<line x1="${shape.from.x}" y1="${shape.from.y}" x2="${shape.to.x}" y2="${shape.to.y}" ${stroke} ` +
          `marker-end="url(#${id})"/>`
        );
      }
      default:
        return '';
    }
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ` +
    `${height}">${parts.join('')}</svg>`
  );
}
