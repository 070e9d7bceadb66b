import type { Decider } from '../../core/decider';
import type { Role } from '../../core/context';
import { NotFoundError, ValidationError, type FieldError } from '../../core/errors';
import { centsWithinRule } from '../../core/money';

/**
 * A transaction split across categories, job numbers and cost codes, in the stream
 * `split-<transactionId>`. A split is saved whole (each save replaces the previous one) or
 * removed; the parts always add up to the transaction's amount to the cent.
 */
export const MIN_SPLIT_PARTS = 2;
export const MAX_SPLIT_PARTS = 50;
/** Percentages are kept in basis points (1 % = 100), so 100 % is 10,000 exactly. */
export const FULL_BASIS_POINTS = 10_000;

export type SplitMode = 'amount' | 'percentage';
export type SplitSource = 'manual' | 'receipt' | 'even';

export interface SplitPart {
  /** Signed like the transaction (an expense's parts are negative), integer cents. */
  amountCents: number;
  /** The share in basis points when the split was given by percentage. */
  basisPoints?: number;
  category: string;
  jobNumber: string;
  costCode: string;
  note?: string;
}

export type SplitEvent =
  | {
      type: 'TransactionSplitSaved';
      data: {
        transactionId: string;
        companyId: string;
        ownerId: string;
        by: string;
        mode: SplitMode;
        source: SplitSource;
        /** The transaction's amount the parts add up to. */
        totalCents: number;
        /** The receipt whose lines proposed it, when one did. */
        receiptId?: string;
        parts: SplitPart[];
      };
    }
  | { type: 'TransactionSplitRemoved'; data: { transactionId: string; companyId: string; ownerId: string; by: string } };

export const SPLIT_EVENT_TYPES = ['TransactionSplitSaved', 'TransactionSplitRemoved'] as const;

export { splitStream } from '../../core/streams';

export interface SplitState {
  parts: SplitPart[] | null;
  mode: SplitMode | null;
  totalCents: number | null;
}

/** What a part is given as: an amount (decimal cents already) or a percentage in basis points. */
export interface SplitPartInput {
  amountCents?: number;
  basisPoints?: number;
  category: string;
  jobNumber: string;
  costCode: string;
  note?: string;
}

/** The master data names of the company (any case), as the caller read them from the write side. */
export interface MasterNames {
  categories: ReadonlySet<string>;
  jobNumbers: ReadonlySet<string>;
  costCodes: ReadonlySet<string>;
}

export type SplitCommand =
  | {
      type: 'SaveSplit';
      transactionId: string;
      companyId: string;
      actorId: string;
      role: Role;
      /** From the transaction's own state: who it belongs to, its amount, whether it still exists. */
      transaction: { ownerId: string; amountCents: number; deleted: boolean };
      mode: SplitMode;
      source: SplitSource;
      receiptId?: string;
      parts: SplitPartInput[];
      names: MasterNames;
    }
  | { type: 'RemoveSplit'; transactionId: string; companyId: string; actorId: string; role: Role; transaction: { ownerId: string; deleted: boolean } };

const lower = (s: string) => s.trim().toLowerCase();

/**
 * Resolves percentage parts into cents that add up to the total exactly: each part gets its
 * share rounded toward zero, and the cents left over go one each to the parts with the largest
 * remainders (largest remainder method), so 3 × 33.33 % of 100.00 is 33.34 + 33.33 + 33.33.
 */
export function centsFromBasisPoints(totalCents: number, basisPoints: readonly number[]): number[] {
  const sign = totalCents < 0 ? -1 : 1;
  const abs = Math.abs(totalCents);
  const exact = basisPoints.map((bp) => (abs * bp) / FULL_BASIS_POINTS);
  const floors = exact.map((x) => Math.floor(x + 1e-9));
  let left = abs - floors.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, r: x - floors[i]! })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; left > 0 && order.length > 0; k = (k + 1) % order.length, left--) floors[order[k]!.i]! += 1;
  return floors.map((c) => c * sign);
}

/** Checks a split and resolves it to parts in cents; throws a ValidationError listing every problem. */
export function validateSplit(totalCents: number, mode: SplitMode, input: readonly SplitPartInput[], names: MasterNames): SplitPart[] {
  const problems: FieldError[] = [];
  if (input.length < MIN_SPLIT_PARTS) problems.push({ field: 'parts', message: `A split needs at least ${MIN_SPLIT_PARTS} parts` });
  if (input.length > MAX_SPLIT_PARTS) problems.push({ field: 'parts', message: `A split has at most ${MAX_SPLIT_PARTS} parts` });
  input.forEach((p, i) => {
    const at = `parts[${i}]`;
    if (!p.category.trim()) problems.push({ field: `${at}.category`, message: 'Category is required' });
    else if (!names.categories.has(lower(p.category))) problems.push({ field: `${at}.category`, message: `Unknown category: ${p.category.trim().slice(0, 100)}` });
    if (!p.jobNumber.trim()) problems.push({ field: `${at}.jobNumber`, message: 'Job number is required' });
    else if (!names.jobNumbers.has(lower(p.jobNumber))) problems.push({ field: `${at}.jobNumber`, message: `Unknown job number: ${p.jobNumber.trim().slice(0, 100)}` });
    if (!p.costCode.trim()) problems.push({ field: `${at}.costCode`, message: 'Cost code is required' });
    else if (!names.costCodes.has(lower(p.costCode))) problems.push({ field: `${at}.costCode`, message: `Unknown cost code: ${p.costCode.trim().slice(0, 100)}` });
    if (mode === 'amount') {
      const c = p.amountCents;
      if (c === undefined || !centsWithinRule(c) || c === 0) problems.push({ field: `${at}.amount`, message: 'Each part needs a non-zero amount' });
      else if (totalCents !== 0 && Math.sign(c) !== Math.sign(totalCents)) problems.push({ field: `${at}.amount`, message: 'Each part has the sign of the transaction amount' });
    } else {
      const bp = p.basisPoints;
      if (bp === undefined || !Number.isInteger(bp) || bp <= 0 || bp > FULL_BASIS_POINTS) problems.push({ field: `${at}.percentage`, message: 'Each part needs a percentage above 0 and at most 100, with at most two decimals' });
    }
  });
  if (problems.length === 0) {
    if (mode === 'amount') {
      const sum = input.reduce((s, p) => s + p.amountCents!, 0);
      if (sum !== totalCents) problems.push({ field: 'parts', message: `The parts add up to ${(sum / 100).toFixed(2)}, not the transaction amount ${(totalCents / 100).toFixed(2)}` });
    } else {
      const sum = input.reduce((s, p) => s + p.basisPoints!, 0);
      if (sum !== FULL_BASIS_POINTS) problems.push({ field: 'parts', message: `The percentages add up to ${(sum / 100).toFixed(2)} %, not 100 %` });
    }
  }
  if (problems.length > 0) throw new ValidationError(problems[0]!.message, problems, 'invalid_split');
  const cents = mode === 'amount' ? input.map((p) => p.amountCents!) : centsFromBasisPoints(totalCents, input.map((p) => p.basisPoints!));
  return input.map((p, i) => ({
    amountCents: cents[i]!,
    ...(mode === 'percentage' ? { basisPoints: p.basisPoints! } : {}),
    category: p.category.trim(),
    jobNumber: p.jobNumber.trim(),
    costCode: p.costCode.trim(),
    ...(p.note?.trim() ? { note: p.note.trim().slice(0, 200) } : {}),
  }));
}

const samePart = (a: SplitPart, b: SplitPart) =>
  a.amountCents === b.amountCents && a.basisPoints === b.basisPoints && a.category === b.category && a.jobNumber === b.jobNumber && a.costCode === b.costCode && a.note === b.note;

export const splitDecider: Decider<SplitState, SplitCommand, SplitEvent> = {
  initialState: () => ({ parts: null, mode: null, totalCents: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'TransactionSplitSaved':
        return { parts: event.data.parts, mode: event.data.mode, totalCents: event.data.totalCents };
      case 'TransactionSplitRemoved':
        return { parts: null, mode: null, totalCents: null };
    }
  },
  decide(command, state) {
    const t = command.transaction;
    // Another member's transaction answers as missing, as everywhere else.
    if (t.deleted || (command.role !== 'admin' && t.ownerId !== command.actorId)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
    const { transactionId, companyId } = command;
    switch (command.type) {
      case 'SaveSplit': {
        const parts = validateSplit(command.transaction.amountCents, command.mode, command.parts, command.names);
        const unchanged = state.parts !== null && state.mode === command.mode && state.totalCents === command.transaction.amountCents
          && state.parts.length === parts.length && state.parts.every((p, i) => samePart(p, parts[i]!));
        if (unchanged) return [];
        return [{
          type: 'TransactionSplitSaved',
          data: {
            transactionId, companyId, ownerId: t.ownerId, by: command.actorId, mode: command.mode, source: command.source,
            totalCents: command.transaction.amountCents, ...(command.receiptId ? { receiptId: command.receiptId } : {}), parts,
          },
        }];
      }
      case 'RemoveSplit':
        if (state.parts === null) return [];
        return [{ type: 'TransactionSplitRemoved', data: { transactionId, companyId, ownerId: t.ownerId, by: command.actorId } }];
    }
  },
};
