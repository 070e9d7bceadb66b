import sharp from 'sharp';

/** Thumbnail width in pixels. */
const WIDTH = 320;
/** A PDF page is rendered with at most this many pixels (4× the thumbnail's width of a letter page). */
const PDF_PIXELS = 1_500_000;

/** A small JPEG of a receipt: the image scaled down, or a PDF's first page rendered. */
export async function thumbnail(bytes: Buffer, kind: 'jpeg' | 'png' | 'pdf'): Promise<Buffer> {
  let image: Buffer = bytes;
  if (kind === 'pdf') {
    const { renderPdfPages } = await import('../ocr/pdf');
    const [first] = await renderPdfPages(bytes, { dpi: 72, maxPages: 1, maxPixels: PDF_PIXELS });
    if (!first) throw new Error('The PDF has no pages');
    image = Buffer.from(first);
  }
  return sharp(image, { limitInputPixels: 40_000_000 }).rotate().resize({ width: WIDTH, withoutEnlargement: true }).flatten({ background: '#ffffff' }).jpeg({ quality: 75 }).toBuffer();
}
