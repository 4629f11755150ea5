/**
 * Which image formats uploads may be, decided from the bytes (never the name or Content-Type),
 * and the bounds an image must keep before any pixel is decoded (decision 162). No I/O: the magic
 * numbers of the first bytes only.
 */

/** The raster formats accepted: what browsers show, with small and well-worn decoders. */
export const ACCEPTED_IMAGE_FORMATS = ['jpeg', 'png', 'gif', 'webp'] as const;
export type AcceptedImageFormat = (typeof ACCEPTED_IMAGE_FORMATS)[number];

/** At most this many pixels (width × height, first frame): 48 MP phone photos pass, 12000² does not. */
export const MAX_IMAGE_PIXELS = 50_000_000;
/** And no side longer than this (a 1 × 50,000,000 strip is not a picture). */
export const MAX_IMAGE_SIDE = 12_000;

/** Why an upload is not an image we read; `code` is the 422's error code. */
export type ImageRefusalCode = 'unsupported_format' | 'not_an_image' | 'too_many_pixels' | 'too_slow_to_decode';

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte);
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** The accepted format the bytes are, or undefined. */
export function sniffImageFormat(bytes: Uint8Array): AcceptedImageFormat | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  return undefined;
}

/** Formats people send that are refused by name, so the message says what was seen. */
const KNOWN_OTHERS: Array<[string, (bytes: Uint8Array) => boolean]> = [
  ['SVG', (bytes) => /<svg[\s>]/i.test(textHead(bytes)) || /^\s*(<\?xml|<!DOCTYPE svg)/i.test(textHead(bytes))],
  ['TIFF', (bytes) => startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])],
  ['BMP', (bytes) => startsWith(bytes, ascii('BM'))],
  ['PDF', (bytes) => startsWith(bytes, ascii('%PDF'))],
  ['HEIF, AVIF or another ISO media file', (bytes) => startsWith(bytes, ascii('ftyp'), 4)],
  ['gzip (SVGZ?)', (bytes) => startsWith(bytes, [0x1f, 0x8b])],
];

function textHead(bytes: Uint8Array): string {
  return Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
}

export const ACCEPTED_FORMATS_TEXT = 'JPEG, PNG, GIF or WebP';

/** Why bytes that are no accepted format are refused, in words for the 422. */
export function refusalOfFormat(bytes: Uint8Array): { code: ImageRefusalCode; message: string } {
  const known = KNOWN_OTHERS.find(([, test]) => test(bytes))?.[0];
  return known
    ? { code: 'unsupported_format', message: `The file is ${known}; images must be ${ACCEPTED_FORMATS_TEXT}` }
    : { code: 'not_an_image', message: `The file is not an image: images must be ${ACCEPTED_FORMATS_TEXT}` };
}

/** Undefined when a width × height image may be decoded, else why not. */
export function refusalOfSize(width: number, height: number): { code: ImageRefusalCode; message: string } | undefined {
  if (width * height > MAX_IMAGE_PIXELS || Math.max(width, height) > MAX_IMAGE_SIDE) {
    return {
      code: 'too_many_pixels',
      message:
        `The image is ${width}x${height} pixels; images may have at most ${MAX_IMAGE_PIXELS} pixels and ` +
        `${MAX_IMAGE_SIDE} on a side`,
    };
  }
  return undefined;
}
