/**
 * What the bytes are (decision 162): the magic numbers of the accepted formats, the refusal of
 * everything else by name, the pixel bounds, and the hostile fixtures of test/support/image-bombs.ts
 * being what they claim (sharp reads their headers back at that size).
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_PIXELS, refusalOfFormat, refusalOfSize, sniffImageFormat } from '../../shared/media/image-format.ts';
import { imageBombs, SVG_BLUR_BOMB } from '../support/image-bombs.ts';

const solid = (format: 'jpeg' | 'png' | 'gif' | 'webp' | 'tiff') =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
    .toFormat(format)
    .toBuffer();

describe('sniffImageFormat', () => {
  it('knows JPEG, PNG, GIF and WebP by their first bytes, whatever the name', async () => {
    for (const format of ['jpeg', 'png', 'gif', 'webp'] as const) {
      expect(sniffImageFormat(await solid(format))).toBe(format);
    }
  });

  it('refuses SVG (also behind an XML declaration), TIFF and BMP by name, anything else as not an image', async () => {
    expect(sniffImageFormat(SVG_BLUR_BOMB)).toBeUndefined();
    expect(refusalOfFormat(SVG_BLUR_BOMB)).toMatchObject({ code: 'unsupported_format', message: /SVG/ });
    const declared = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(refusalOfFormat(declared).message).toMatch(/SVG/);
    const tiff = await solid('tiff');
    expect(sniffImageFormat(tiff)).toBeUndefined();
    expect(refusalOfFormat(tiff).message).toMatch(/TIFF/);
    expect(refusalOfFormat(Buffer.from('BM\0\0\0\0')).message).toMatch(/BMP/);
    expect(refusalOfFormat(Buffer.from('{"not": "an image"}'))).toMatchObject({ code: 'not_an_image' });
    expect(sniffImageFormat(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('refusalOfSize', () => {
  it('passes a 48 MP photo and refuses 12000x12000, past 50 MP, and a side over 12000', () => {
    expect(refusalOfSize(8064, 6048)).toBeUndefined();
    expect(refusalOfSize(12_000, 4000)).toBeUndefined();
    expect(refusalOfSize(12_000, 12_000)?.code).toBe('too_many_pixels');
    expect(refusalOfSize(MAX_IMAGE_PIXELS / 5000 + 1, 5000)?.code).toBe('too_many_pixels');
    expect(refusalOfSize(12_001, 10)?.code).toBe('too_many_pixels');
  });
});

describe('the hostile fixtures', () => {
  it('are a few KB each and declare the sizes they claim (sharp reads their headers)', async () => {
    const sizes: Record<string, [number, number]> = {
      'PNG 12000x12000': [12_000, 12_000],
      'WebP 12000x12000': [12_000, 12_000],
      'GIF 12000x12000': [12_000, 12_000],
      'PNG bomb 40000x40000': [40_000, 40_000],
    };
    for (const bomb of await imageBombs()) {
      expect(bomb.bytes.length, bomb.name).toBeLessThan(64 * 1024);
      const expected = sizes[bomb.name];
      if (!expected) continue;
      const metadata = await sharp(bomb.bytes, { limitInputPixels: false }).metadata();
      expect([metadata.width, metadata.height], bomb.name).toEqual(expected);
    }
  });
});
