import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodePrintCopy, encodePrintCopy } from '@paperlink/domain';
import { printCopy } from '../receipts/thumbnail';
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

  it("a receipt's print copy: made once from the file, then embedded without the file; a receipt without one gets it made by the report", async () => {
    const photo = await sharp(scan).resize({ width: 1800, height: 2400, fit: 'fill' }).jpeg({ quality: 97 }).toBuffer();
    expect(photo.length).toBeGreaterThan(500_000);
    const copy = decodePrintCopy(await printCopy(photo))!;
    expect(copy).toMatchObject({ asIs: false, complete: true });
    const m = await sharp(copy.pages[0]!).metadata();
    expect([m.format, m.width! <= 800, m.height! <= 1100]).toEqual(['jpeg', true, true]);
    expect(decodePrintCopy(await printCopy(scan))).toEqual({ asIs: true, complete: true, pages: [] });
    // With the copy, the file is not needed (the report does not read it).
    const fromCopy = await prepareImage({ receiptId: 'd', filename: 'd.jpg', kind: 'jpeg', print: encodePrintCopy(copy) }, 'all');
    expect(fromCopy.from).toBe('print-copy');
    expect(fromCopy.pages.map((p) => Buffer.compare(p, copy.pages[0]!))).toEqual([0]);
    expect(fromCopy.made).toBeUndefined();
    // Without it (a file stored before copies), the file is downscaled and the copy handed back to be kept.
    const made = await prepareImage({ receiptId: 'd', filename: 'd.jpg', kind: 'jpeg', bytes: photo, sha256: 'ab'.repeat(32) }, 'all');
    expect(made.from).toBe('file');
    expect(made.made?.sha256).toBe('ab'.repeat(32));
    expect(Buffer.compare(decodePrintCopy(made.made!.copy)!.pages[0]!, made.pages[0]!)).toBe(0);
    // What is not a copy is ignored: the file is used.
    expect(decodePrintCopy(Buffer.from('garbage!'))).toBeNull();
    expect(decodePrintCopy(encodePrintCopy(copy).subarray(0, 40))).toBeNull();
    expect((await prepareImage({ receiptId: 'e', filename: 'e.jpg', kind: 'jpeg', bytes: scan, print: Buffer.from('garbage!') }, 1)).from).toBe('file');
  }, 30_000);
});
