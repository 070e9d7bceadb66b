/**
 * The merchant date-order history kept by its projection (projections/src/receipts/date-orders.ts)
 * gives the OCR job the same map as the history read from every receipt did (merchantDateOrders
 * over the receipts read model), through random histories of readings, corrections, re-readings
 * and deletions; and reading it does not go through the company's receipts.
 */
import { describe, expect, it } from 'vitest';
import { merchantDateOrders, receiptStream, type DateOrder, type PastReceipt, type RecordedEvent } from '@paperlink/domain';
import { MERCHANT_DATE_ORDERS, merchantDateOrdersOf, RECEIPTS, receiptDateOrdersProjection, receiptsProjection, UnitOfWork, type ReceiptDoc } from '@paperlink/projections';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';

function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** The history as the OCR job read it before: every receipt of the company with a recorded order. */
async function fromEveryReceipt(store: EmbeddedReadStore, companyId: string): Promise<Record<string, DateOrder>> {
  const docs = await store.collection<ReceiptDoc>(RECEIPTS).find({ companyId, date_order: { $exists: true } });
  const past: PastReceipt[] = docs.filter((d) => d.date_order).map((d) => ({
    merchant: d.extracted_merchant,
    dateOrder: { order: d.date_order!.order, evidence: d.date_order!.evidence },
    readDate: d.date_order!.readDate,
    date: d.extracted_date,
    dateCorrected: d.corrected.includes('date'),
  }));
  return merchantDateOrders(past);
}

function history(seed: number, receipts: number, steps: number): RecordedEvent[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const merchants = ['Café Lumière', 'CAFE LUMIERE', 'Kedai Runcit Ah Seng Sdn Bhd', 'kedai runcit ah seng', 'Shell', 'SHELL STATION 12', 'Tesco Extra', null];
  const days = ['2024-03-05', '2024-05-03', '2024-07-07', '2024-11-25', '2024-02-10', '2024-10-02'];
  const swap = (d: string) => `${d.slice(0, 4)}-${d.slice(8, 10)}-${d.slice(5, 7)}`;
  const companies = ['c1', 'c2'];
  const live = new Map<string, { companyId: string; revision: number; date: string | null }>();
  const events: RecordedEvent[] = [];
  let position = 0;
  const push = (id: string, type: string, data: Record<string, unknown>) => {
    const s = live.get(id)!;
    events.push({ id: `e${position}`, type, data, metadata: { occurredAt: new Date(Date.UTC(2024, 0, 1) + position * 1000).toISOString() }, streamId: receiptStream(id), revision: s.revision++, position: ++position } as unknown as RecordedEvent);
  };
  for (let step = 0; step < steps; step++) {
    const id = `r${Math.floor(r() * receipts)}`;
    const s = live.get(id);
    if (!s) {
      const companyId = pick(companies);
      live.set(id, { companyId, revision: 0, date: null });
      push(id, 'ReceiptUploaded', { receiptId: id, companyId, userId: 'u1', originalName: `${id}.jpg`, contentType: 'image/jpeg', kind: 'jpeg', size: 10, sha256: id, duplicateOf: null });
      continue;
    }
    const ids = { receiptId: id, companyId: s.companyId };
    const x = r();
    if (x < 0.5) {
      const date = r() < 0.1 ? null : pick(days);
      s.date = date;
      const dateOrder = r() < 0.15 ? undefined : { order: pick(['day-first', 'month-first'] as const), evidence: pick(['receipt', 'receipt', 'merchant', 'company', 'default'] as const) };
      push(id, 'ReceiptRead', { ...ids, run: 0, source: 'ocr', text: '', fields: { date, totalCents: 100, merchant: pick(merchants), taxCents: null, description: null }, confidence: {}, ...(dateOrder ? { dateOrder } : {}), ocrConfidence: 0.9, ms: 1 });
    } else if (x < 0.85) {
      const changes: Record<string, unknown> = {};
      const y = r();
      if (y < 0.4 && s.date) changes.date = swap(s.date);
      else if (y < 0.6 && s.date) changes.date = s.date;
      else if (y < 0.75) changes.date = pick(days);
      else changes.merchant = pick(merchants);
      if (r() < 0.2) changes.merchant = pick(merchants);
      if (typeof changes.date === 'string') s.date = changes.date;
      push(id, 'ReceiptCorrected', { ...ids, by: 'u1', changes });
    } else if (x < 0.93) {
      push(id, 'ReceiptReprocessRequested', { ...ids, run: 1, by: 'u1' });
    } else {
      push(id, 'ReceiptDeleted', { ...ids, by: 'u1' });
      live.delete(id);
    }
  }
  return events;
}

describe('the merchant date-order history', () => {
  it('kept by its projection equals the one read from every receipt, through random histories', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const store = new EmbeddedReadStore();
      const events = history(seed, 60, 900);
      for (const p of [receiptsProjection, receiptDateOrdersProjection]) {
        const unit = new UnitOfWork(store);
        for (const e of events) if (p.handles.has(e.type)) await p.apply(e, unit.viewFor(e));
        await store.commit(unit.writes, []);
      }
      let proven = 0;
      for (const companyId of ['c1', 'c2']) {
        const expected = await fromEveryReceipt(store, companyId);
        proven += Object.keys(expected).length;
        expect(await merchantDateOrdersOf(store, companyId), `seed ${seed}, ${companyId}`).toEqual(expected);
      }
      // The histories prove orders (the comparison is not of two empty maps).
      expect(proven, `seed ${seed}`).toBeGreaterThan(0);
      // No merchant's votes go below zero, and a merchant without votes has no document.
      for (const d of await store.collection<{ _id: string; day: number; month: number }>(MERCHANT_DATE_ORDERS).find({})) {
        expect(d.day, d._id).toBeGreaterThanOrEqual(0);
        expect(d.month, d._id).toBeGreaterThanOrEqual(0);
        expect(d.day + d.month, d._id).toBeGreaterThan(0);
      }
    }
  });

  it('is read from the company\'s merchants, not its receipts', async () => {
    const store = new EmbeddedReadStore();
    const events = history(11, 400, 3000);
    const unit = new UnitOfWork(store);
    for (const e of events) if (receiptDateOrdersProjection.handles.has(e.type)) await receiptDateOrdersProjection.apply(e, unit.viewFor(e));
    await store.commit(unit.writes, []);
    const read: string[] = [];
    const spy = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'collection') return (name: string) => (read.push(name), target.collection(name));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    await merchantDateOrdersOf(spy, 'c1');
    expect(read).toEqual([MERCHANT_DATE_ORDERS]);
    // A few documents a merchant, whatever the number of receipts.
    expect((await store.collection(MERCHANT_DATE_ORDERS).find({ companyId: 'c1' })).length).toBeLessThanOrEqual(8);
  });
});
