/**
 * The guide PDF's images (functions/pages/pdf/pdf-images.ts): JPEG and PNG go in as they are,
 * a format a PDF cannot hold (WebP, GIF) is converted to PNG, and bytes that are no image are
 * left out rather than breaking the PDF.
 */
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { pdfImageBytes } from '../../functions/pages/pdf/pdf-images.ts';

const picture = () => sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } });
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

it('keeps JPEG and PNG bytes as they are', async () => {
  const jpeg = await picture().jpeg().toBuffer();
  const png = await picture().png().toBuffer();
  expect(await pdfImageBytes(jpeg)).toBe(jpeg);
  expect(await pdfImageBytes(png)).toBe(png);
});

it('converts WebP and GIF to PNG of the same size', async () => {
  for (const format of ['webp', 'gif'] as const) {
    const converted = await pdfImageBytes(await picture().toFormat(format).toBuffer());
    expect(converted!.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(await sharp(converted!).metadata()).toMatchObject({ format: 'png', width: 40, height: 30 });
  }
});

it('leaves out bytes that are no image', async () => {
  expect(await pdfImageBytes(Buffer.from('<svg onload="x"/>'))).toBeUndefined();
});
