import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createOcrPool } from './pool';
import { readReceipt } from './read-receipt';

const pool = createOcrPool({ workers: 1 });

afterAll(async () => {
  await pool.close();
});

/**
 * An invented receipt whose shop name is printed small (9 px type under 18 px lines): tesseract
 * reading the whole page as one block garbles that line, so the merchant comes out wrong and
 * doubtful; the name's line read again alone, enlarged, reads right.
 */
async function smallNameReceipt(): Promise<Buffer> {
  const lines: Array<[string, number]> = [
    ['HAPPY LAMB HOTPOT', 9], ['12 JALAN MAWAR, KUALA LUMPUR', 18], ['TEL 03-2345 6789', 18], ['DATE: 14/06/2019  10:42', 18],
    ['CROISSANT x2          9.00', 18], ['LATTE                 12.50', 18], ['MUFFIN                 6.75', 18],
    ['SERVICE CHARGE         2.85', 18], ['TOTAL                 31.10', 18], ['PAID BY CARD', 18], ['THANK YOU', 18],
  ];
  let y = 30;
  const texts = lines.map(([t, size]) => {
    y += Math.max(size, 14) * 1.8;
    return `<text x="30" y="${y}" font-family="DejaVu Sans Mono" font-size="${size}" xml:space="preserve">${t}</text>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="520" height="${y + 40}"><rect width="100%" height="100%" fill="white"/>${texts}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

describe('targeted line re-reading (tesseract.js, offline)', () => {
  it('reads a doubtful field right by reading its candidate lines again, which the page reading alone gets wrong', async () => {
    const image = await smallNameReceipt();
    const pageOnly = await readReceipt(image, pool, { lines: false });
    expect(pageOnly.fields.merchant?.value).not.toBe('HAPPY LAMB HOTPOT');
    expect(pageOnly.linesReread ?? 0).toBe(0);

    const r = await readReceipt(image, pool);
    expect(r.linesReread).toBeGreaterThan(0);
    expect(r.fields.merchant?.value).toBe('HAPPY LAMB HOTPOT');
    // The other fields stay as read, and the merchant's box is still the line it was read from,
    // near the top of the page, as a fraction of the page.
    expect(r.fields.total?.cents).toBe(3110);
    expect(r.fields.date?.value).toBe('2019-06-14');
    const box = r.boxes?.merchant;
    expect(box).toBeDefined();
    expect(box![1]).toBeLessThan(0.15);
    expect(box![3]).toBeGreaterThan(box![1]);
    expect(r.passes).toBe(1);
  }, 120_000);
});
