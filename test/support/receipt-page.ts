import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import sharp from 'sharp';

const fontDir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
GlobalFonts.registerFromPath(join(fontDir, 'DejaVuSansMono.ttf'), 'TestMono');

/** A white page with receipt-like upper-case lines in a monospace font `fontPx` tall, as a JPEG (invented, no dataset copy). */
export function receiptPage(fontPx: number, width = 600): Buffer {
  const lines = ['GRAND HARDWARE TRADING', 'NO 12 JALAN MAJU 3', 'DATE 14/03/2018 10:42', 'NAILS 2IN X4 12.60',
    'PAINT BRUSH 7.90', 'SUBTOTAL 20.50', 'GST 6% 1.23', 'TOTAL RM 21.73', 'CASH 50.00', 'CHANGE 28.27'];
  const lineHeight = Math.round(fontPx * 1.6);
  const canvas = createCanvas(width, lineHeight * (lines.length + 2));
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#111';
  ctx.font = `${fontPx}px TestMono`;
  ctx.textBaseline = 'alphabetic';
  lines.forEach((text, i) => ctx.fillText(text, 10, lineHeight * (i + 1.5)));
  return canvas.toBuffer('image/jpeg', 95);
}

/** A JPEG as raw 8-bit greyscale pixels. */
export async function grey(jpeg: Buffer): Promise<{ data: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(jpeg).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

