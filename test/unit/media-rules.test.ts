import { describe, expect, it } from 'vitest';
import { failureReason } from '../../functions/pipeline/mark-import-failed.ts';
import {
  constraintForFilename,
  contentTypeForFilename,
  IMAGE_SIZES,
  isMediaType,
  safeFilename,
} from '../../shared/domain/media.ts';
import { markupSvg } from '../../shared/media/images.ts';

describe('media rules', () => {
  it('types a file by its extension, case-insensitively', () => {
    expect(constraintForFilename('Photo.JPG')?.type).toBe('GuideImage');
    expect(constraintForFilename('clip.webm')?.type).toBe('GuideVideoObject');
    expect(constraintForFilename('spec.pdf')?.type).toBe('Document');
    expect(constraintForFilename('tool.exe')).toBeUndefined();
    expect(constraintForFilename('no-extension')).toBeUndefined();
    expect(contentTypeForFilename('a.tiff')).toBe('image/tiff');
  });

  it('keeps only a safe base name', () => {
    expect(safeFilename('../../etc/passwd')).toBe('passwd');
    expect(safeFilename('C:\\Users\\me\\"quoted"\u0007.png')).toBe('quoted.png');
    expect(safeFilename(`${'x'.repeat(300)}.png`)).toHaveLength(200);
    expect(safeFilename('   ')).toBe('');
  });

  it('names the four item types of the real service, and the Image sizes from mini to huge', () => {
    expect(['GuideImage', 'GuideVideoObject', 'GuideEmbedObject', 'Document'].every(isMediaType)).toBe(true);
    expect(isMediaType('GuideSound')).toBe(false);
    expect(IMAGE_SIZES.map((size) => size.name)).toEqual([
      'mini',
      'thumbnail',
      '140x105',
      '200x150',
      'standard',
      '440x330',
      'medium',
      'large',
      'huge',
    ]);
  });

  it('draws markup as SVG with named or hex colours', () => {
    const svg = markupSvg(
      [
        { shape: 'rectangle', x: 1, y: 2, width: 30, height: 40, color: 'red' },
        { shape: 'arrow', from: { x: 0, y: 0 }, to: { x: 10, y: 10 }, color: '#00ff00', stroke_width: 4 },
      ],
      100,
      80,
    );
    expect(svg).toContain('<rect x="1" y="2" width="30" height="40" fill="none" stroke="#e8352e"');
    expect(svg).toContain('marker-end="url(#head1)"');
    expect(svg).toContain('stroke="#00ff00" stroke-width="4"');
    expect(svg).toMatch(/^<svg [^>]*width="100" height="80"/);
  });
});

describe('failureReason (MarkImportFailed)', () => {
  const lambdaCause = (errorType: string, errorMessage: string) =>
    JSON.stringify({ errorType, errorMessage, trace: [] });

  it("reads the code of a rejected package from Lambda's error document", () => {
    expect(
      failureReason({
        Error: 'PackageRejected',
        Cause: lambdaCause('PackageRejected', '[zip_bomb] Entry "x" expands 1000 times'),
      }),
    ).toEqual({
      code: 'zip_bomb',
      message: 'Entry "x" expands 1000 times',
    });
  });

  it('maps a package never uploaded, storage trouble, timeouts and the unknown', () => {
    expect(
      failureReason({ Error: 'PackageNotUploaded', Cause: lambdaCause('PackageNotUploaded', 'No package') }).code,
    ).toBe('upload_missing');
    expect(
      failureReason({ Error: 'TransientStorageError', Cause: lambdaCause('TransientStorageError', 'SlowDown') }).code,
    ).toBe('storage_unavailable');
    expect(failureReason({ Error: 'States.Timeout', Cause: 'Task timed out' }).code).toBe('timeout');
    expect(failureReason({ Error: 'TypeError', Cause: lambdaCause('TypeError', 'x is undefined') })).toEqual({
      code: 'internal',
      message: 'TypeError: x is undefined',
    });
    expect(failureReason(undefined).code).toBe('internal');
  });
});
