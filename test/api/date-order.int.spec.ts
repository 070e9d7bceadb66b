import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIDENT_AT, extractReceiptFields, type ExtractOptions } from '@paperlink/domain';
import type { ReceiptReader } from '../../infra/src/receipts/ocr-job';
import { toReceiptReading } from '../../infra/src/receipts/reader';
import { registerAccount, settle, startApi, type Account, type Api } from '../support/harness';
import { imageOf, labels } from '../support/labelled-reader';

// An ambiguous receipt date reads from evidence: the receipt, the merchant's
// earlier receipts, the company's dateOrder setting. The reader here runs the real extraction
// on INVENTED receipt texts (keyed by the uploaded file's hash), with the options the OCR job
// passes, so the test shows the job's hints, not OCR quality.
const texts = new Map<string, string>();
const seen: Array<ExtractOptions | undefined> = [];
const reader: ReceiptReader = {
  async read(bytes, options) {
    seen.push(options);
    const text = texts.get(createHash('sha256').update(bytes).digest('hex')) ?? '';
    return toReceiptReading({ source: 'ocr', text, fields: extractReceiptFields(text, undefined, options), ocrConfidence: 90, ms: 1 });
  },
};
const receipt = (merchant: string, date: string) => [merchant, '7 Mill Lane', `Date: ${date} 10:15`, 'Sourdough loaf   5.40', 'TOTAL            5.40'].join('\n');

let api: Api;
let next = 0;
beforeAll(async () => {
  api = await startApi({}, undefined, { reader });
});
afterAll(() => api?.close());

/** Uploads a file whose "OCR" text is `text` and waits for it to be read. */
async function read(who: Account, text: string): Promise<{ receipt: Record<string, unknown>; dateOrder: unknown }> {
  const bytes = imageOf(labels[next++]!.id);
  texts.set(createHash('sha256').update(bytes).digest('hex'), text);
  const res = await api.http.post('/api/receipts/upload').set(who.headers()).attach('receipt', bytes, 'r.jpg').expect(201);
  const id = res.body.receipt.id as string;
  for (let i = 0; i < 200; i++) {
    const r = (await api.http.get(`/api/receipts/${id}`).set(who.headers())).body.receipt as Record<string, unknown>;
    if (r.processing_status === 'completed' || r.processing_status === 'failed') {
      const events = await api.paperlink.adapters.events.readStream(`receipt-${id}`);
      const readEvent = events.find((e) => e.type === 'ReceiptRead');
      return { receipt: r, dateOrder: (readEvent?.data as { dateOrder?: unknown } | undefined)?.dateOrder };
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('never read');
}

const setOrder = (who: Account, value: string) => api.http.put('/api/settings/dateOrder').set(who.headers()).send({ value }).expect(200);

describe('date order per receipt', () => {
  it('reads 03/04/2026 as 3 April for a day-first company and as March 4 for a month-first one', async () => {
    const dayFirst = await registerAccount(api, { companyName: 'Harbour Day Ltd' });
    const monthFirst = await registerAccount(api, { companyName: 'Harbour Month Inc' });
    await setOrder(dayFirst, 'day-first');
    await setOrder(monthFirst, 'month-first');
    const a = await read(dayFirst, receipt('WILLOW BAKERY', '03/04/2026'));
    expect(a.receipt.extracted_date).toBe('2026-04-03');
    expect(a.dateOrder).toEqual({ order: 'day-first', evidence: 'company' });
    const b = await read(monthFirst, receipt('WILLOW BAKERY', '03/04/2026'));
    expect(b.receipt.extracted_date).toBe('2026-03-04');
    expect(b.dateOrder).toEqual({ order: 'month-first', evidence: 'company' });
  });

  it('a same-merchant earlier receipt dated 25/03/2026 decides over the company setting', async () => {
    const co = await registerAccount(api, { companyName: 'Mixed Suppliers Inc' });
    await setOrder(co, 'month-first');
    const earlier = await read(co, receipt('Willow Bakery Ltd', '25/03/2026'));
    expect(earlier.receipt.extracted_date).toBe('2026-03-25');
    expect(earlier.dateOrder).toEqual({ order: 'day-first', evidence: 'receipt' });
    const ambiguous = await read(co, receipt('WILLOW BAKERY', '03/04/2026'));
    expect(ambiguous.receipt.extracted_date).toBe('2026-04-03');
    expect(ambiguous.dateOrder).toEqual({ order: 'day-first', evidence: 'merchant' });
    expect(seen.at(-1)?.merchantDateOrders).toEqual({ 'WILLOW BAKERY': 'day-first' });
    // Another merchant of the same company has no history: the company setting decides.
    const other = await read(co, receipt('RIVERSIDE HARDWARE', '03/04/2026'));
    expect(other.receipt.extracted_date).toBe('2026-03-04');
    expect(other.dateOrder).toEqual({ order: 'month-first', evidence: 'company' });
  });

  it("a year outside the company's card lines, one learned OCR slip away, is mended and flagged; a company without lines keeps it", async () => {
    const co = await registerAccount(api, { companyName: 'Kedai Period Sdn Bhd' });
    const bare = await registerAccount(api, { companyName: 'No Lines Yet Ltd' });
    const csv = 'Transaction Date,Description,Amount\n2018-03-02,SQ *WILLOW BAKERY,-5.40\n2018-09-28,RIVERSIDE HARDWARE,-12.00\n';
    await api.http.post('/api/transactions/import').set(co.headers()).attach('csvFile', Buffer.from(csv), 'lines.csv').expect(200);
    await settle(api);
    // Printed 14/06/2018; the OCR read 2013 (3 for 8, the slip the committed table counts most for a 3).
    const slipped = await read(co, receipt('WILLOW BAKERY', '14/06/2013'));
    expect(slipped.receipt.extracted_date).toBe('2018-06-14');
    expect(seen.at(-1)?.period).toEqual({ from: '2018-03-02', to: '2018-09-28' });
    // And the day after today: a receipt is never dated in the future.
    expect(seen.at(-1)?.notAfter).toBe(new Date(Date.now() + 86_400_000).toISOString().slice(0, 10));
    const events = await api.paperlink.adapters.events.readStream(`receipt-${slipped.receipt.id as string}`);
    const confidence = (events.find((e) => e.type === 'ReceiptRead')?.data as { confidence?: { date?: number } } | undefined)?.confidence;
    expect(confidence?.date).toBeLessThan(CONFIDENT_AT);
    // Inside the period: as read, confident as before.
    const inside = await read(co, receipt('WILLOW BAKERY', '14/06/2018'));
    expect(inside.receipt.extracted_date).toBe('2018-06-14');
    // No lines, no period: the date as read.
    const noPeriod = await read(bare, receipt('WILLOW BAKERY', '14/06/2013'));
    expect(seen.at(-1)?.period).toBeUndefined();
    expect(noPeriod.receipt.extracted_date).toBe('2013-06-14');
  });
});
