import { deflateSync } from 'node:zlib';

/**
 * A small PNG built by hand (header, one IDAT of `seed` bytes, IEND): `seed` changes its bytes,
 * `withEnd: false` leaves out IEND (a truncated file).
 */
export function png(width: number, height: number, options: { seed?: number; withEnd?: boolean } = {}): Buffer {
  const { seed = 0, withEnd = true } = options;
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64, seed))),
    ...(withEnd ? [chunk('IEND', Buffer.alloc(0))] : []),
  ]);
}
