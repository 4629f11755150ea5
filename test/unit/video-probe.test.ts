import { describe, expect, it } from 'vitest';
import { readBoxHeader, videoFactsFromMoov } from '../../shared/domain/video-probe.ts';
import { minimalMp4 } from '../support/mp4.ts';

/** The moov box of a file, found by walking its top-level boxes. */
function moovOf(file: Buffer): Buffer {
  for (let offset = 0; offset < file.length; ) {
    const box = readBoxHeader(file, offset)!;
    if (box.type === 'moov') return file.subarray(offset, offset + box.size);
    offset += box.size;
  }
  throw new Error('no moov');
}

describe('videoFactsFromMoov', () => {
  it('reads the size of the video track (not the audio track) and the length from mvhd', () => {
    const file = minimalMp4({ width: 1920, height: 1080, durationMs: 12_345 });
    expect(videoFactsFromMoov(moovOf(file))).toEqual({ width: 1920, height: 1080, durationMs: 12_345 });
  });

  it('gives nulls for bytes that are not a moov box, or a cut-off one', () => {
    expect(videoFactsFromMoov(Buffer.from('not a video at all'))).toEqual({
      width: null,
      height: null,
      durationMs: null,
    });
    const moov = moovOf(minimalMp4({ width: 640, height: 480, durationMs: 1000 }));
    expect(videoFactsFromMoov(moov.subarray(0, 40)).width).toBeNull();
  });
});

describe('readBoxHeader', () => {
  it('reads 64-bit sizes, sizes to the end of the file, and refuses impossible ones', () => {
    const large = Buffer.alloc(16);
    large.writeUInt32BE(1, 0);
    large.write('mdat', 4, 'latin1');
    large.writeBigUInt64BE(5_000_000_000n, 8);
    expect(readBoxHeader(large, 0)).toEqual({ type: 'mdat', start: 0, size: 5_000_000_000, headerSize: 16 });
    const toEnd = Buffer.from('\0\0\0\0mdat', 'latin1');
    expect(readBoxHeader(toEnd, 0, 100, 1000)).toMatchObject({ start: 100, size: 900 });
    expect(readBoxHeader(Buffer.from('\0\0\0\x04moov', 'latin1'), 0)).toBeUndefined();
    expect(readBoxHeader(Buffer.from('\0\0\0', 'latin1'), 0)).toBeUndefined();
  });
});
