/**
 * Hostile images for the media tests and the bench's media-bombs section, each a few KB: an SVG
 * filter under a .png name, 12000x12000 PNG, WebP and GIF, and a PNG decompression bomb. Built
 * in milliseconds: sharp needs 5-25 s to encode 144 million pixels, so the PNGs are written here
 * directly (zlib), and the WebP and GIF are small sharp images whose headers are given the big
 * size (the pixel bound reads the header; test/unit/image-format.test.ts checks sharp reads
 * these sizes back).
 */
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** About 200 bytes: a 3000 px rect under a Gaussian blur (the render of issue 23: 29 s, GBs). */
export const SVG_BLUR_BOMB = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="3000"><filter id="b">' +
    '<feGaussianBlur stdDeviation="400"/></filter><rect width="3000" height="3000" fill="#c33" ' +
    'filter="url(#b)"/></svg>',
);

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

function png(width: number, height: number, bitDepth: number, colourType: number, idat: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([bitDepth, colourType, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A complete, valid black PNG of that size, greyscale: 1 bit per pixel (12000² is about 20 KB),
 * or 8 (slower to decode: work for the deadline and concurrency tests).
 */
export function solidPng(width: number, height: number, bitDepth: 1 | 8 = 1): Buffer {
  const row = 1 + Math.ceil((width * bitDepth) / 8); // filter byte, then the samples
  return png(width, height, bitDepth, 0, deflateSync(Buffer.alloc(row * height), { level: 9 }));
}

/**
 * A decompression bomb: a ~8 KB PNG declaring 40000x40000 RGB (4.8 GB of pixels); its IDAT holds
 * the first 64 rows. Nothing may read past its header.
 */
export function pngBomb(): Buffer {
  const [width, height] = [40_000, 40_000];
  return png(width, height, 8, 2, deflateSync(Buffer.alloc((1 + width * 3) * 64), { level: 9 }));
}

/** A small solid WebP (lossless, VP8L) whose header says width x height. */
export async function bigWebp(width: number, height: number): Promise<Buffer> {
  const bytes = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#2a9d8f' } })
    .webp({ lossless: true })
    .toBuffer();
  if (bytes.toString('latin1', 12, 16) !== 'VP8L' || bytes[20] !== 0x2f) throw new Error('not a simple VP8L WebP');
  // After the 0x2f signature: 14 bits width - 1, 14 bits height - 1, alpha, version (little-endian).
  const bits = bytes.readUInt32LE(21);
  bytes.writeUInt32LE(((bits & 0xf0000000) | (width - 1) | ((height - 1) << 14)) >>> 0, 21);
  return bytes;
}

/** A small solid GIF whose screen and first frame say width x height. */
export async function bigGif(width: number, height: number): Promise<Buffer> {
  const bytes = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#e76f51' } })
    .gif()
    .toBuffer();
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  let at = 13 + (bytes[10]! & 0x80 ? 3 * 2 ** ((bytes[10]! & 0x07) + 1) : 0);
  while (bytes[at] === 0x21) {
    at += 2; // extension introducer and label, then sub-blocks up to an empty one
    while (bytes[at]! > 0) at += bytes[at]! + 1;
    at += 1;
  }
  if (bytes[at] !== 0x2c) throw new Error('no image descriptor');
  bytes.writeUInt16LE(width, at + 5);
  bytes.writeUInt16LE(height, at + 7);
  return bytes;
}

export interface ImageBomb {
  name: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
  /** The 422 code an upload gets. */
  code: 'unsupported_format' | 'too_many_pixels';
}

/** Every bomb, as the tests and the bench send them. */
export async function imageBombs(): Promise<ImageBomb[]> {
  return [
    {
      name: 'SVG blur under .png',
      filename: 'x.png',
      contentType: 'image/png',
      bytes: SVG_BLUR_BOMB,
      code: 'unsupported_format',
    },
    {
      name: 'PNG 12000x12000',
      filename: 'big.png',
      contentType: 'image/png',
      bytes: solidPng(12_000, 12_000),
      code: 'too_many_pixels',
    },
    {
      name: 'WebP 12000x12000',
      filename: 'big.webp',
      contentType: 'image/webp',
      bytes: await bigWebp(12_000, 12_000),
      code: 'too_many_pixels',
    },
    {
      name: 'GIF 12000x12000',
      filename: 'big.gif',
      contentType: 'image/gif',
      bytes: await bigGif(12_000, 12_000),
      code: 'too_many_pixels',
    },
    {
      name: 'PNG bomb 40000x40000',
      filename: 'bomb.png',
      contentType: 'image/png',
      bytes: pngBomb(),
      code: 'too_many_pixels',
    },
  ];
}
