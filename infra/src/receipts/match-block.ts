import { dayNumber, isoOfDay, prepareReceipt, receiptBlock, receiptDayRange, resolveOptions, type MatchStatus, type ReadStore } from '@paperlink/domain';
import type { KnownMatch, MatchDeps, MatchReceipt, MatchSeed, MatchTransaction } from '@paperlink/command-api';
import { MATCHES, RECEIPTS, TRANSACTIONS, type MatchDoc, type ReceiptDoc, type TransactionDoc } from '@paperlink/projections';

/** Work on the request thread between turns of the event loop, at most. */
const SLICE_MS = 15;

/**
 * Auto-match's candidate block (issue 13 item 3, ADR 0021), read from the read models through
 * their (companyId, posting day) indexes: the lines of the days a receipt's amount windows can
 * still reach the threshold on (domain/src/matching/blocking.ts), and the receipts dated where a
 * new line could pay them. The cost follows the seed and the density of a few weeks of
 * history, not the company's size.
 */
export function matchBlock(store: ReadStore, asReceipt: (d: ReceiptDoc) => MatchReceipt, asTransaction: (d: TransactionDoc) => MatchTransaction): MatchDeps['block'] {
  const options = resolveOptions();
  return async (companyId, seed: MatchSeed, scope, threshold) => {
    // An import's block is hundreds of day queries: a turn of the event loop whenever a slice of them took SLICE_MS.
    let slice = performance.now();
    const breathe = async () => {
      if (performance.now() - slice < SLICE_MS) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    };
    const own = scope.userId ? { userId: scope.userId } : {};
    const receiptsC = store.collection<ReceiptDoc>(RECEIPTS);
    const txC = store.collection<TransactionDoc>(TRANSACTIONS);
    const receipts = new Map<string, MatchReceipt>();
    const take = (d: ReceiptDoc | null) => {
      if (d && d.processing_status === 'completed' && (!scope.userId || d.userId === scope.userId)) receipts.set(d._id, asReceipt(d));
    };
    for (const id of seed.receiptIds ?? []) take(await receiptsC.findOne({ _id: id, companyId }));

    // Receipts that a seed line (or a line posted on a seed day) could pay: dated up to 60 days before it, 3 after.
    const receiptDays = new Set<string>();
    const addLineDays = (from: number, to: number) => {
      const [lo, hi] = receiptDayRange(from, to);
      for (let d = lo; d <= hi; d++) receiptDays.add(isoOfDay(d));
    };
    for (const id of seed.transactionIds ?? []) {
      const t = await txC.findOne({ _id: id, companyId });
      const day = dayNumber(t?.transaction_date);
      if (day !== null) addLineDays(day, day);
    }
    if (seed.days) {
      const [from, to] = seed.days.map(dayNumber);
      if (from != null && to != null && from <= to) addLineDays(from, to);
    }
    for (const iso of receiptDays) {
      for (const d of await receiptsC.find({ companyId, extracted_date: iso, ...own })) take(d);
      await breathe();
    }

    // Every line those receipts could be matched to: their days, within their amount windows.
    const windowsByDay = new Map<string, Array<[number, number]>>();
    const undated: Array<[number, number]> = [];
    for (const r of receipts.values()) {
      const prepared = prepareReceipt(r);
      if (!prepared) continue;
      const b = receiptBlock(prepared, options, threshold);
      // Without a date nor a total a receipt could be any line of the company: no block (it reaches 43 at most).
      if (b.days === null) undated.push(...(prepared.totalCents === null ? [] : b.amounts));
      else for (const iso of b.days) windowsByDay.set(iso, [...(windowsByDay.get(iso) ?? []), ...b.amounts]);
    }
    const transactions = new Map<string, MatchTransaction>();
    const fits = (windows: Array<[number, number]>, d: TransactionDoc) => windows.some(([lo, hi]) => -d.amountCents >= lo && -d.amountCents <= hi);
    for (const [iso, windows] of windowsByDay) {
      for (const d of await txC.find({ companyId, transaction_date: iso, ...own })) if (fits(windows, d)) transactions.set(d._id, asTransaction(d));
      await breathe();
    }
    // A receipt without a date may be paid on any day: only its amounts narrow the search (rare, and below the default threshold).
    for (const [lo, hi] of undated) {
      for (const d of await txC.find({ companyId, amountCents: { $gte: -hi, $lte: -lo }, ...own })) transactions.set(d._id, asTransaction(d));
    }
    // Receipts already suggested with those lines compete for them again.
    for (const id of transactions.keys()) {
      for (const m of await store.collection<MatchDoc>(MATCHES).find({ companyId, transactionId: id, status: 'pending' })) {
        if (!receipts.has(m.receiptId)) take(await receiptsC.findOne({ _id: m.receiptId, companyId }));
      }
      await breathe();
    }
    return { receipts: [...receipts.values()], transactions: [...transactions.values()] };
  };
}

/** Matches of a company by status (one indexed query per status), or of given receipts (one per receipt). */
export function knownMatches(store: ReadStore): MatchDeps['matchesOf'] {
  return async (companyId, statuses: MatchStatus[], receiptIds) => {
    const c = store.collection<MatchDoc>(MATCHES);
    const docs: MatchDoc[] = [];
    if (receiptIds) {
      const wanted = new Set(statuses);
      let slice = performance.now();
      for (const id of new Set(receiptIds)) {
        for (const d of await c.find({ companyId, receiptId: id })) if (wanted.has(d.status)) docs.push(d);
        if (performance.now() - slice > SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
      }
    } else {
      for (const status of statuses) docs.push(...(await c.find({ companyId, status })));
    }
    return docs.map((d): KnownMatch => ({ matchId: d._id, receiptId: d.receiptId, transactionId: d.transactionId, status: d.status }));
  };
}
