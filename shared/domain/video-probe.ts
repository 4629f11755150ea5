/**
 * Reads a video's size and length from its MP4/QuickTime boxes (ISO BMFF), without decoding a
 * frame: `moov` holds `mvhd` (timescale, duration) and one `trak/tkhd` per track, whose width and
 * height (16.16 fixed point) are non-zero for the video track. Pure: the caller reads the bytes.
 */

export interface BoxHeader {
  type: string;
  /** Offset of the box in the file. */
  start: number;
  /** Whole box, header included. */
  size: number;
  headerSize: number;
}

/** The header of the box at `offset` of `bytes` (which begin at file offset `base`), or undefined if cut off. */
export function readBoxHeader(bytes: Buffer, offset: number, base = 0, fileSize = Infinity): BoxHeader | undefined {
  if (offset + 8 > bytes.length) return undefined;
  let size = bytes.readUInt32BE(offset);
  const type = bytes.toString('latin1', offset + 4, offset + 8);
  let headerSize = 8;
  if (size === 1) {
    if (offset + 16 > bytes.length) return undefined;
    size = Number(bytes.readBigUInt64BE(offset + 8));
    headerSize = 16;
  } else if (size === 0) {
    size = fileSize - (base + offset); // to the end of the file
  }
  if (size < headerSize || !Number.isFinite(size)) return undefined;
  return { type, start: base + offset, size, headerSize };
}

function children(bytes: Buffer, from: number, to: number): Array<BoxHeader & { at: number }> {
  const boxes: Array<BoxHeader & { at: number }> = [];
  for (let at = from; at + 8 <= to; ) {
    const box = readBoxHeader(bytes, at);
    if (!box || at + box.size > to) break;
    boxes.push({ ...box, at });
    at += box.size;
  }
  return boxes;
}

export interface VideoFacts {
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

/** The facts in a whole `moov` box (header included); nulls for what it does not say. */
export function videoFactsFromMoov(moov: Buffer): VideoFacts {
  const facts: VideoFacts = { width: null, height: null, durationMs: null };
  const top = readBoxHeader(moov, 0);
  if (top?.type !== 'moov') return facts;
  for (const box of children(moov, top.headerSize, Math.min(top.size, moov.length))) {
    const body = box.at + box.headerSize;
    if (box.type === 'mvhd' && body + 32 <= moov.length) {
      const version = moov.readUInt8(body);
      const timescale = version === 1 ? moov.readUInt32BE(body + 20) : moov.readUInt32BE(body + 12);
      const duration = version === 1 ? Number(moov.readBigUInt64BE(body + 24)) : moov.readUInt32BE(body + 16);
      if (timescale > 0) facts.durationMs = Math.round((duration * 1000) / timescale);
    }
    if (box.type === 'trak' && facts.width === null) {
      const tkhd = children(moov, body, box.at + box.size).find((child) => child.type === 'tkhd');
      if (!tkhd) continue;
      const tkhdBody = tkhd.at + tkhd.headerSize;
      const sizeAt = tkhdBody + (moov.readUInt8(tkhdBody) === 1 ? 88 : 76);
      if (sizeAt + 8 > tkhd.at + tkhd.size) continue;
      const width = Math.round(moov.readUInt32BE(sizeAt) / 65536);
      const height = Math.round(moov.readUInt32BE(sizeAt + 4) / 65536);
      if (width > 0 && height > 0) Object.assign(facts, { width, height });
    }
  }
  return facts;
}
