import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { jpegSize, prepareImage } from './images';

const RECEIPTS_DEV = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'data', 'receipts-dev');
const scanName = readdirSync(RECEIPTS_DEV).find((f) => f.endsWith('.jpg'))!;
const scan = readFileSync(join(RECEIPTS_DEV, scanName));

describe('receipt images for PDF reports', () => {
  it('reads a JPEG frame header without decoding, and refuses what is not one', async () => {
    const meta = await sharp(scan).metadata();
    expect(jpegSize(scan)).toEqual({ width: meta.width, height: meta.height, components: 3 });
    expect(jpegSize(Buffer.from('not a jpeg at all'))).toBeNull();
    expect(jpegSize(scan.subarray(0, 20))).toBeNull();
  });

  it('embeds a small scan as it is and downscales a phone photo and a PNG to JPEGs within 800 x 1100', async () => {
    const kept = await prepareImage({ receiptId: 'a', filename: 'a.jpg', kind: 'jpeg', bytes: scan }, 'all');
    expect(kept.pages).toHaveLength(1);
    expect(Buffer.compare(kept.pages[0]!, scan)).toBe(0);
    const photo = await sharp(scan).resize({ width: 3024, height: 4032, fit: 'fill' }).jpeg({ quality: 95 }).toBuffer();
    expect(photo.length).toBeGreaterThan(500_000);
    const png = await sharp(scan).png().toBuffer();
    for (const [bytes, kind] of [[photo, 'jpeg'], [png, 'png']] as const) {
      const out = await prepareImage({ receiptId: 'b', filename: 'b', kind, bytes }, 1);
      const m = await sharp(out.pages[0]!).metadata();
      expect(m.format).toBe('jpeg');
      expect(m.width).toBeLessThanOrEqual(800);
      expect(m.height).toBeLessThanOrEqual(1100);
    }
  });

  it('says a file could not be read instead of failing the report', async () => {
    const out = await prepareImage({ receiptId: 'c', filename: 'c.pdf', kind: 'pdf', bytes: Buffer.from('%PDF-1.4 broken') }, 2);
    expect(out).toEqual({ filename: 'c.pdf', pages: [], error: 'the file could not be read' });
  });
});
