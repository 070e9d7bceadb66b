import { dayNumber, isoOfDay, prepareReceipt, receiptBlock, receiptDayRange, resolveOptions, type MatchStatus, type ReadStore, type ResolvedMatchOptions } from '@paperlink/domain';
import type { KnownMatch, MatchDeps, MatchReceipt, MatchSeed, MatchTransaction, Pause } from '@paperlink/command-api';
import { MATCHES, RECEIPTS, TRANSACTIONS, type MatchDoc, type ReceiptDoc, type TransactionDoc } from '@paperlink/projections';

/**
 * Work on the request thread between turns of the event loop, at most: a request arriving while
 * a block is read (a reject starts one) waits for one slice per step of its own, not for the block.
 */
const SLICE_MS = 5;
/**
 * A window of lines (posting days x an amount range) is read by the (companyId, transaction_date,
 * amountCents) index: the amount is tested in the index, so only the lines in the window are
 * read. Without the hint SQLite chose the posting-day index and read every line of the days
 * (at 1,000,000 lines, 550 a day: 10 ms a window against 1 ms), or the amount index, whose
 * range spans every year of the company's history.
 */
const BY_DAY_AND_AMOUNT = { hint: ['companyId', 'transaction_date', 'amountCents'] } as const;
/** The same for the receipts a line could pay: 64 days of a big company's receipts (3,500) tested by their total in the index (25 -> 0.4 ms). */
const RECEIPTS_BY_DAY_AND_TOTAL = { hint: ['companyId', 'extracted_date', 'extractedCents'] } as const;
/** Up to this many receipts, each reads its lines window by window; more read them day by day. */
const FEW_RECEIPTS = 16;

/**
 * The receipt totals (positive cents) whose amount windows (blocking.ts amountWindows: exact or
 * rounding, a foreign-card fee, a tip) can hold a card amount, widened by a cent each side; the
 * receipt's own block decides exactly. Undefined when the options bound nothing.
 */
export function totalsPaying(cardCents: number, o: ResolvedMatchOptions): [number, number] | undefined {
  const up = 1 + Math.max(0, o.fxFeeMax, o.tipMax);
  const down = 1 + Math.min(0, o.fxFeeMin, o.tipMin);
  if (!(down > 0) || !Number.isFinite(up)) return undefined;
  return [Math.max(1, Math.floor((cardCents - o.roundingCents - 1) / up) - 1), Math.ceil((cardCents + o.roundingCents + 1) / down) + 1];
}

/**
 * Auto-match's candidate block (ADR 0021), read from the read models through
 * their (companyId, posting day) indexes: the lines of the days a receipt's amount windows can
 * still reach the threshold on (domain/src/matching/blocking.ts), and the receipts dated where a
 * new line could pay them. The cost follows the seed and the density of a few weeks of
 * history, not the company's size.
 */
export function matchBlock(store: ReadStore, asReceipt: (d: ReceiptDoc) => MatchReceipt, asTransaction: (d: TransactionDoc) => MatchTransaction): MatchDeps['block'] {
  const options = resolveOptions();
  return async (companyId, seed: MatchSeed, scope, threshold, pause?: Pause) => {
    // An import's block is hundreds of day queries: a turn of the event loop whenever a slice of them took SLICE_MS.
    let slice = performance.now();
    const breathe = async () => {
      if (performance.now() - slice < SLICE_MS) return;
      // A job's run waits for the requests in flight (pause); a request's own read takes a turn only.
      await (pause ? pause() : new Promise<void>((resolve) => setImmediate(resolve)));
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

    // A seed line's receipts: dated up to 60 days before it, 3 after, whose totals could be paid
    // by its amount (SQL narrows by the total, the receipt's own block decides): the receipts of
    // two months of a big company were thousands, and each brought two months of its lines.
    for (const id of seed.transactionIds ?? []) {
      const t = await txC.findOne({ _id: id, companyId });
      const day = dayNumber(t?.transaction_date);
      if (!t || day === null || !(t.amountCents < 0)) continue;
      const card = -t.amountCents;
      const [lo, hi] = receiptDayRange(day, day);
      const totals = totalsPaying(card, options);
      const found = await receiptsC.find({
        companyId, extracted_date: { $gte: isoOfDay(lo), $lte: isoOfDay(hi) }, ...own,
        ...(totals ? { $or: [{ extractedCents: null }, { extractedCents: { $gte: totals[0], $lte: totals[1] } }] } : {}),
      }, RECEIPTS_BY_DAY_AND_TOTAL);
      const iso = isoOfDay(day);
      for (const d of found) {
        const prepared = prepareReceipt(asReceipt(d));
        if (!prepared) continue;
        const b = receiptBlock(prepared, options, threshold);
        if (b.days?.includes(iso) && b.amounts.some(([l, h]) => card >= l && card <= h)) take(d);
        await breathe(); // each receipt's block is worked out here (0.5 ms; dozens of receipts)
      }
      await breathe();
    }
    // Receipts that a line posted on a seed day could pay: dated up to 60 days before it, 3 after.
    if (seed.days) {
      const receiptDays = new Set<string>();
      const [from, to] = seed.days.map(dayNumber);
      if (from != null && to != null && from <= to) {
        const [lo, hi] = receiptDayRange(from, to);
        for (let d = lo; d <= hi; d++) receiptDays.add(isoOfDay(d));
      }
      for (const iso of receiptDays) {
        for (const d of await receiptsC.find({ companyId, extracted_date: iso, ...own })) take(d);
        await breathe();
      }
    }

    // Every line those receipts could be matched to: their days, within their amount windows.
    // A few receipts read each window over their days' range through the (companyId, amount,
    // posting day) index (a window of a big company's amounts holds few lines; a day holds
    // hundreds, and a block is two months of days); many read their days one by one, each
    // within the envelope of that day's windows.
    const blocks: Array<{ days: Set<string>; first: string; last: string; amounts: Array<[number, number]> }> = [];
    const undated: Array<[number, number]> = [];
    for (const r of receipts.values()) {
      // An import's receipts are thousands at a company's full size (two months of them): 240 ms
      // of blocks worked out in one go held /api/health for as long (1,000,000 lines, ADR 0029).
      await breathe();
      const prepared = prepareReceipt(r);
      if (!prepared) continue;
      const b = receiptBlock(prepared, options, threshold);
      // Without a date nor a total a receipt could be any line of the company: no block (it reaches 43 at most).
      if (b.days === null) undated.push(...(prepared.totalCents === null ? [] : b.amounts));
      else if (b.days.length > 0 && b.amounts.length > 0) blocks.push({ days: new Set(b.days), first: b.days[0]!, last: b.days[b.days.length - 1]!, amounts: b.amounts });
    }
    const transactions = new Map<string, MatchTransaction>();
    const fits = (windows: Array<[number, number]>, d: TransactionDoc) => windows.some(([lo, hi]) => -d.amountCents >= lo && -d.amountCents <= hi);
    const anyAmount = (windows: Array<[number, number]>) => windows.some(([, hi]) => hi >= Number.MAX_SAFE_INTEGER);
    if (blocks.length <= FEW_RECEIPTS && !blocks.some((b) => anyAmount(b.amounts))) {
      for (const b of blocks) {
        for (const [lo, hi] of b.amounts) {
          if (hi < lo) continue;
          for (const d of await txC.find({ companyId, amountCents: { $gte: -hi, $lte: -lo }, transaction_date: { $gte: b.first, $lte: b.last }, ...own }, BY_DAY_AND_AMOUNT)) {
            if (b.days.has(d.transaction_date)) transactions.set(d._id, asTransaction(d));
          }
          await breathe();
        }
      }
    } else {
      const windowsByDay = new Map<string, Array<[number, number]>>();
      for (const b of blocks) for (const iso of b.days) windowsByDay.set(iso, [...(windowsByDay.get(iso) ?? []), ...b.amounts]);
      for (const [iso, windows] of windowsByDay) {
        const lo = Math.min(...windows.map((w) => w[0]));
        const hi = Math.max(...windows.map((w) => w[1]));
        const amount = anyAmount(windows) ? {} : { amountCents: { $gte: -hi, $lte: -lo } };
        for (const d of await txC.find({ companyId, transaction_date: iso, ...amount, ...own }, BY_DAY_AND_AMOUNT)) if (fits(windows, d)) transactions.set(d._id, asTransaction(d));
        await breathe();
      }
    }
    // A receipt without a date may be paid on any day: only its amounts narrow the search (rare, and below the default threshold).
    for (const [lo, hi] of undated) {
      for (const d of await txC.find({ companyId, amountCents: { $gte: -hi, $lte: -lo }, ...own })) transactions.set(d._id, asTransaction(d));
    }
    // Receipts already suggested with those lines compete for them again (by the (companyId, transactionId) index).
    for (const id of transactions.keys()) {
      for (const m of await store.collection<MatchDoc>(MATCHES).find({ companyId, transactionId: id })) {
        if (m.status === 'pending' && !receipts.has(m.receiptId)) take(await receiptsC.findOne({ _id: m.receiptId, companyId }));
      }
      await breathe();
    }
    return { receipts: [...receipts.values()], transactions: [...transactions.values()] };
  };
}

/** Matches of a company by status (one indexed query per status), or of given receipts (one per receipt). */
export function knownMatches(store: ReadStore): MatchDeps['matchesOf'] {
  return async (companyId, statuses: MatchStatus[], receiptIds, pause?: Pause) => {
    const c = store.collection<MatchDoc>(MATCHES);
    const docs: MatchDoc[] = [];
    if (receiptIds) {
      const wanted = new Set(statuses);
      let slice = performance.now();
      for (const id of new Set(receiptIds)) {
        for (const d of await c.find({ companyId, receiptId: id })) if (wanted.has(d.status)) docs.push(d);
        if (performance.now() - slice > SLICE_MS) {
          await (pause ? pause() : new Promise<void>((resolve) => setImmediate(resolve)));
          slice = performance.now();
        }
      }
    } else {
      for (const status of statuses) docs.push(...(await c.find({ companyId, status })));
    }
    return docs.map((d): KnownMatch => ({ matchId: d._id, receiptId: d.receiptId, transactionId: d.transactionId, status: d.status }));
  };
}
