/**
 * The inputs that cost the most per byte sent, as an attacker found them: each is small on the
 * wire and was large in work. Shared by the tests that bound them, the noisy-neighbour test and
 * the fuzz suite's seeds.
 */
import { deflateSync } from 'node:zlib';

/** An iCalendar file of `events` events, each recurring by `rule` from `start` (UTC). */
export function recurringCalendar(events: number, rule = 'FREQ=SECONDLY', start = '19700101T000000Z'): Buffer {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//worst//EN'];
  for (let i = 0; i < events; i++) lines.push('BEGIN:VEVENT', `UID:w${i}@x`, `DTSTART:${start}`, `SUMMARY:w${i}`, `RRULE:${rule}`, 'END:VEVENT');
  lines.push('END:VCALENDAR', '');
  return Buffer.from(lines.join('\r\n'));
}

/** The 33 KB calendar of 400 events, each FREQ=SECONDLY, that held a worker for 30 s. */
export const secondlyCalendar = (): Buffer => recurringCalendar(400);

/** A PDF of one letter page from the given objects (bodies as bytes); xref offsets computed. */
function pdfOf(objects: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(obj);
    length += obj.length;
  });
  const xref = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(Buffer.from(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/**
 * A one-page PDF with a line of text ("TOTAL 12.00", so it passes the upload's content check)
 * followed by `megabytes` of tiny filled rectangles, the page content deflated: 54 MB of
 * operators is a 130 KB file that cost a worker 30 s per thumbnail.
 */
export function deflatedContentPdf(megabytes: number): Buffer {
  const op = '0 0 1 1 re f\n';
  const text = 'BT /F1 12 Tf 72 712 Td (TOTAL 12.00) Tj ET\n';
  const content = Buffer.from(text + op.repeat(Math.floor((megabytes * 1024 * 1024) / op.length)), 'latin1');
  const z = deflateSync(content, { level: 9 });
  return pdfOf([
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>'),
    Buffer.concat([Buffer.from(`<< /Length ${z.length} /Filter /FlateDecode >>\nstream\n`), z, Buffer.from('\nendstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ]);
}

/** The 130 KB PDF whose page decompresses to 54 MB. */
export const pdfBomb = (): Buffer => deflatedContentPdf(54);

/** A statement whose second row's description is `megabytes` long (20 MB was accepted, and cost 3.3 GB to categorise). */
export function longRowStatement(megabytes: number): Buffer {
  return Buffer.from(`Date,Description,Amount\n2024-04-01,COFFEE,-3.50\n2024-04-02,${'X'.repeat(Math.floor(megabytes * 1024 * 1024))},-1.00\n`);
}
