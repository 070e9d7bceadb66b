/**
 * Automatic matching of a company's receipts to its card lines.
 *
 * 1. Blocking (blocking.ts) picks, for each receipt, the lines worth scoring.
 * 2. Scoring (score.ts) keeps pairs at or above the threshold: the candidate graph.
 * 3. One-to-one assignment maximising the total confidence, per connected component of
 *    that graph. Greedy "best pair first" is wrong when the best pair takes the only
 *    candidate of another receipt (receipt A: line 1 at 95 or line 2 at 90; receipt B: line
 *    1 at 90; greedy gives 95, the optimum 180). Components are small, so each gets the
 *    exact Hungarian algorithm; a pathological giant component falls back to greedy.
 *
 * Ties (equal total confidence) go to the smaller day gap, then to the smaller ids.
 */
import { buildIndex, candidatesFor } from './blocking';
import { resolveOptions } from './factors';
import type { MatchOptions } from './factors';
import { maxWeightAssignment } from './hungarian';
import { prepareReceipt, prepareTransaction, scorePrepared } from './score';
import type { MatchEvidence, PairSimilarity, PreparedReceipt, PreparedTransaction, ReceiptInput, TransactionInput } from './score';
import { similarityToDescriptor } from './similarity';
import type { MerchantName } from './similarity';

export interface AutoMatchOptions extends MatchOptions {
  /** Lowest confidence proposed, 0-100. Default 75 (the product's default auto-match threshold). */
  threshold?: number;
  /** Pairs a user confirmed: their receipts and lines are taken and never proposed again. */
  confirmed?: ReadonlyArray<readonly [receiptId: string, transactionId: string]>;
  /** Pairs a user rejected: never proposed again (each side stays free for other pairs). */
  rejected?: ReadonlyArray<readonly [receiptId: string, transactionId: string]>;
}

export interface MatchProposal {
  receiptId: string;
  transactionId: string;
  confidence: number;
  evidence: MatchEvidence;
}

export const DEFAULT_AUTO_MATCH_THRESHOLD = 75;

/** Components up to this size (rows^2 x columns) are solved exactly. */
const HUNGARIAN_BUDGET = 8_000_000;
/** Day gaps at least this large get no tie-break bonus. */
const GAP_CAP = 31;

interface Edge {
  receipt: PreparedReceipt;
  tx: PreparedTransaction;
  proposal: MatchProposal;
  gap: number;
}

const pairKey = (receiptId: string, transactionId: string) => `${receiptId}\u0000${transactionId}`;
const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Best first: confidence, then smaller day gap, then receipt id, then line id. */
function compareEdges(a: Edge, b: Edge): number {
  return b.proposal.confidence - a.proposal.confidence || a.gap - b.gap
    || compareIds(a.receipt.id, b.receipt.id) || compareIds(a.tx.id, b.tx.id);
}

/**
 * Merchant similarity memoised by (merchant, description), both shared objects (prepared once
 * per distinct text): a company's receipts from one shop meet that shop's lines again and again.
 */
function memoisedSimilarity(): PairSimilarity {
  const known = new Map<readonly MerchantName[], Map<readonly MerchantName[], number>>();
  return (merchant, t) => {
    const readings = t.readings();
    let row = known.get(merchant);
    if (row === undefined) {
      row = new Map();
      known.set(merchant, row);
    }
    let s = row.get(readings);
    if (s === undefined) {
      s = similarityToDescriptor(merchant, readings);
      row.set(readings, s);
    }
    return s;
  };
}

/** Scores each receipt against its blocked candidates; keeps pairs at or above the threshold. */
function candidateEdges(receipts: readonly PreparedReceipt[], txs: readonly PreparedTransaction[], options: AutoMatchOptions, threshold: number): Edge[] {
  const o = resolveOptions(options);
  const index = buildIndex(txs);
  const rejected = new Set((options.rejected ?? []).map(([r, t]) => pairKey(r, t)));
  const similarity = memoisedSimilarity();
  const edges: Edge[] = [];
  for (const r of receipts) {
    for (const t of candidatesFor(index, r, o, threshold)) {
      if (rejected.size > 0 && rejected.has(pairKey(r.id, t.id))) continue;
      const score = scorePrepared(r, t, o, threshold, similarity);
      if (score === null) continue;
      const days = score.evidence.daysBetween;
      edges.push({
        receipt: r,
        tx: t,
        gap: days === null ? GAP_CAP : Math.min(GAP_CAP, Math.abs(days)),
        proposal: { receiptId: r.id, transactionId: t.id, confidence: score.confidence, evidence: score.evidence },
      });
    }
  }
  return edges;
}

/** Edges grouped by connected component (union-find over receipts and lines). */
function components(edges: readonly Edge[]): Edge[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root) ?? root;
    let node = x;
    while (node !== root) {
      const next = parent.get(node) ?? root;
      parent.set(node, root);
      node = next;
    }
    return root;
  };
  for (const e of edges) {
    const a = `r:${e.receipt.id}`;
    const b = `t:${e.tx.id}`;
    if (!parent.has(a)) parent.set(a, a);
    if (!parent.has(b)) parent.set(b, b);
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
  const groups = new Map<string, Edge[]>();
  for (const e of edges) {
    const root = find(`r:${e.receipt.id}`);
    const group = groups.get(root);
    if (group) group.push(e);
    else groups.set(root, [e]);
  }
  return [...groups.values()];
}

/** Greedy one-to-one: best edges first. Optimal when one side has a single node. */
function greedy(edges: readonly Edge[]): Edge[] {
  const takenR = new Set<string>();
  const takenT = new Set<string>();
  const out: Edge[] = [];
  for (const e of [...edges].sort(compareEdges)) {
    if (takenR.has(e.receipt.id) || takenT.has(e.tx.id)) continue;
    takenR.add(e.receipt.id);
    takenT.add(e.tx.id);
    out.push(e);
  }
  return out;
}

/**
 * Exact maximum total confidence on one component. Weights are integers: confidence scaled so
 * that no sum of day-gap bonuses can outweigh one confidence point, plus the bonus.
 */
function optimal(edges: readonly Edge[]): Edge[] {
  const receiptIds = [...new Set(edges.map((e) => e.receipt.id))].sort(compareIds);
  const txIds = [...new Set(edges.map((e) => e.tx.id))].sort(compareIds);
  if (receiptIds.length === 1 || txIds.length === 1) return greedy(edges);
  const transpose = receiptIds.length > txIds.length;
  const [rowIds, colIds] = transpose ? [txIds, receiptIds] : [receiptIds, txIds];
  if (rowIds.length * rowIds.length * colIds.length > HUNGARIAN_BUDGET) return greedy(edges);
  const rowOf = new Map(rowIds.map((id, k) => [id, k]));
  const colOf = new Map(colIds.map((id, k) => [id, k]));
  const scale = (GAP_CAP + 2) * (rowIds.length + 1);
  const weights = new Float64Array(rowIds.length * colIds.length);
  const byCell = new Map<number, Edge>();
  for (const e of edges) {
    const row = rowOf.get(transpose ? e.tx.id : e.receipt.id) ?? 0;
    const col = colOf.get(transpose ? e.receipt.id : e.tx.id) ?? 0;
    const cell = row * colIds.length + col;
    weights[cell] = e.proposal.confidence * scale + (GAP_CAP - e.gap) + 1;
    byCell.set(cell, e);
  }
  const assignment = maxWeightAssignment(rowIds.length, colIds.length, (i, j) => weights[i * colIds.length + j] ?? 0);
  const out: Edge[] = [];
  assignment.forEach((col, row) => {
    const e = col < 0 ? undefined : byCell.get(row * colIds.length + col);
    if (e) out.push(e);
  });
  return out;
}

/**
 * Proposes one-to-one matches between receipts and card lines with confidence >= threshold,
 * maximising the total confidence. Receipts and lines in `confirmed` pairs are left out;
 * `rejected` pairs are never proposed. Credits and refunds are never matched. Deterministic:
 * the same input gives the same proposals, sorted by receipt id.
 */
export function autoMatch(receipts: readonly ReceiptInput[], transactions: readonly TransactionInput[], options: AutoMatchOptions = {}): MatchProposal[] {
  const threshold = options.threshold ?? DEFAULT_AUTO_MATCH_THRESHOLD;
  const confirmedReceipts = new Set((options.confirmed ?? []).map(([r]) => r));
  const confirmedTxs = new Set((options.confirmed ?? []).map(([, t]) => t));
  const seenR = new Set<string>();
  const preparedReceipts: PreparedReceipt[] = [];
  const merchants = new Map<string, readonly MerchantName[]>();
  for (const input of receipts) {
    if (confirmedReceipts.has(input.id) || seenR.has(input.id)) continue;
    seenR.add(input.id);
    const r = prepareReceipt(input, merchants);
    if (r) preparedReceipts.push(r);
  }
  const seenT = new Set<string>();
  const preparedTxs: PreparedTransaction[] = [];
  const descriptors = new Map<string, readonly MerchantName[]>();
  for (const input of transactions) {
    if (confirmedTxs.has(input.id) || seenT.has(input.id)) continue;
    seenT.add(input.id);
    const t = prepareTransaction(input, descriptors);
    if (t) preparedTxs.push(t);
  }
  const edges = candidateEdges(preparedReceipts, preparedTxs, options, threshold);
  const chosen = components(edges).flatMap(optimal);
  return chosen.map((e) => e.proposal).sort((a, b) => compareIds(a.receiptId, b.receiptId));
}
