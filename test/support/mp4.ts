/** A minimal MP4 for tests: ftyp, an mdat of `mdatBytes`, then moov (mvhd + one video trak/tkhd). */
function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function mvhd(timescale: number, duration: number): Buffer {
  const body = Buffer.alloc(100);
  body.writeUInt32BE(timescale, 12);
  body.writeUInt32BE(duration, 16);
  return box('mvhd', body);
}

function tkhd(width: number, height: number): Buffer {
  const body = Buffer.alloc(84);
  body.writeUInt32BE(width * 65536, 76);
  body.writeUInt32BE(height * 65536, 80);
  return box('tkhd', body);
}

export function minimalMp4(options: { width: number; height: number; durationMs: number; mdatBytes?: number }): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'));
  const mdat = box('mdat', Buffer.alloc(options.mdatBytes ?? 1024, 0x42));
  const audio = box('trak', tkhd(0, 0));
  const video = box('trak', tkhd(options.width, options.height));
  return Buffer.concat([ftyp, mdat, box('moov', mvhd(1000, options.durationMs), audio, video)]);
}
