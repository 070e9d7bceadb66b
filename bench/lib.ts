/** Small helpers for benchmarks: medians over runs, aligned output. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function row(label: string, value: string, note = ''): void {
  console.log(`  ${label.padEnd(52)} ${value.padStart(16)}  ${note}`);
}

export async function runs<T>(n: number, fn: (i: number) => Promise<T> | T): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await fn(i));
  return out;
}

/** A receipt as a PDF with a text layer: read without OCR (the reader's pdf-text path). */
export async function textPdf(lines: string[]): Promise<Buffer> {
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ size: 'A6' });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((r) => doc.on('end', () => r()));
  doc.fontSize(11).text(lines.join('\n'));
  doc.end();
  await done;
  return Buffer.concat(chunks);
}
