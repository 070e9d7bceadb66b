/**
 * Matching precision and recall on real receipts: the SROIE dev receipts against
 * the three card statements built for them (`../shared/data/bank-csv`), at thresholds 70, 75,
 * 80 and 90. A proposal is correct when its line is the truth line (same date, description
 * and amount); recall counts the receipts that have a card line.
 *   - matcher alone: the receipts' labelled merchant, date and total;
 *   - end to end, extractor: `extractReceiptFields` (rules + learned ranker, ADR 0026) on each
 *     dev receipt's first tesseract.js reading (bench/.cache/ocr-dev-raw.json, filled with one
 *     worker on first use), with no retry: what the committed extractor makes of OCR text.
 *     Goal at threshold 70: precision >= 0.98, recall >= 0.90.
 *   - end to end, pipeline: the fields the OCR bench extracted with retries
 *     (bench/.cache/ocr-extracted.json, written by bench/ocr.ts), when present.
 * Goals of the matcher alone at the default threshold 75: precision >= 0.99, recall >= 0.95.
 *   node --import tsx bench/matching.ts [--verbose]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBankStatement } from '../domain/src/csv/index';
import { extractReceiptFields } from '../domain/src/receipts/index';
import { CONFIDENT_AT } from '../domain/src/receipts/learned/model';
import { devOcr } from '../lab/receipts/ocr-cache';
import { statementPeriod } from '../lab/receipts/score';
import { autoMatch } from '../domain/src/matching/index';
import type { MatchProposal, ReceiptInput, TransactionInput } from '../domain/src/matching/index';
import { fmt, median, row, runs } from './lib';

const DATA = join(import.meta.dirname, '..', '..', 'shared', 'data');
const OCR_CACHE = join(import.meta.dirname, '.cache', 'ocr-extracted.json');
const OCR_CACHE_TRAIN = join(import.meta.dirname, '.cache', 'ocr-extracted-train.json');
const FORMATS = ['spec', 'chase', 'capitalone'] as const;
const THRESHOLDS = [70, 75, 80, 90] as const;
const DEFAULT_THRESHOLD = 75;
const VERBOSE = process.argv.includes('--verbose');

interface TruthLine {
  date: string;
  description: string;
  amount: number;
}

interface Statement {
  format: string;
  transactions: TransactionInput[];
  /** receipt id -> key of its card line, or null (paid in cash). */
  truth: Map<string, string | null>;
}

const cents = (amount: number) => Math.round(amount * 100);
const lineKey = (date: string, description: string, amountCents: number) => `${date}|${description.trim().replace(/\s+/g, ' ')}|${amountCents}`;

function labelledReceipts(): ReceiptInput[] {
  const dir = join(DATA, 'receipts-dev');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const label = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { id: string; merchant: string; date: string; total: number };
      return { id: label.id, merchant: label.merchant, date: label.date, totalCents: cents(label.total) };
    });
}

/** Receipts with the OCR bench's fields; a receipt it did not read keeps only its id (nothing to match). */
function ocrReceipts(ids: readonly string[], file = OCR_CACHE): ReceiptInput[] | null {
  if (!existsSync(file)) return null;
  const read = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { merchant?: string | null; date?: string | null; totalCents?: number | null; merchantConfidence?: number | null; dateConfidence?: number | null } | null>;
  return ids.map((id) => {
    const f = read[id] ?? {};
    return { id, merchant: f.merchant ?? null, date: f.date ?? null, totalCents: typeof f.totalCents === 'number' ? f.totalCents : null, ...doubt(f.merchantConfidence, f.dateConfidence) };
  });
}

function loadStatement(format: string): Statement {
  const parsed = parseBankStatement(readFileSync(join(DATA, 'bank-csv', `${format}.csv`)));
  const transactions = parsed.rows.map((r): TransactionInput => ({
    id: `${format}:${r.row}`,
    date: r.date,
    description: r.description,
    amountCents: r.amountCents,
    cardHolder: r.fullName ?? ([r.firstName, r.lastName].filter(Boolean).join(' ') || null),
  }));
  const truthFile = JSON.parse(readFileSync(join(DATA, 'bank-csv', `${format}.truth.json`), 'utf8')) as { receipt_to_transaction: Record<string, TruthLine | null> };
  const truth = new Map<string, string | null>();
  for (const [id, line] of Object.entries(truthFile.receipt_to_transaction)) {
    truth.set(id, line === null ? null : lineKey(line.date, line.description, cents(line.amount)));
  }
  return { format, transactions, truth };
}

interface Outcome {
  proposed: number;
  correct: number;
  positives: number;
  wrong: MatchProposal[];
  missed: string[];
}

function evaluate(statement: Statement, proposals: readonly MatchProposal[]): Outcome {
  const byId = new Map(statement.transactions.map((t) => [t.id, t]));
  let correct = 0;
  const wrong: MatchProposal[] = [];
  const found = new Set<string>();
  for (const p of proposals) {
    const t = byId.get(p.transactionId);
    const ok = t !== undefined && statement.truth.get(p.receiptId) === lineKey(t.date, t.description, t.amountCents);
    if (ok) {
      correct++;
      found.add(p.receiptId);
    } else wrong.push(p);
  }
  const positives = [...statement.truth.values()].filter((v) => v !== null).length;
  const missed = [...statement.truth.entries()].filter(([id, v]) => v !== null && !found.has(id)).map(([id]) => id);
  return { proposed: proposals.length, correct, positives, wrong, missed };
}

/** One line per wrong or missed receipt, to see why. */
function details(statement: Statement, receipts: readonly ReceiptInput[], o: Outcome): string[] {
  const tx = new Map(statement.transactions.map((t) => [t.id, t]));
  const rc = new Map(receipts.map((r) => [r.id, r]));
  const out: string[] = [];
  for (const p of o.wrong) {
    const t = tx.get(p.transactionId);
    out.push(`wrong  ${p.receiptId} ${rc.get(p.receiptId)?.merchant ?? '?'} -> ${t?.date} ${t?.description} ${t?.amountCents} (${p.confidence}: ${p.evidence.reasons.join('; ')})`);
  }
  for (const id of o.missed) {
    const r = rc.get(id);
    out.push(`missed ${id} ${r?.merchant ?? '(no merchant)'} ${r?.date ?? '(no date)'} ${r?.totalCents ?? '(no total)'} -> ${statement.truth.get(id)}`);
  }
  return out;
}

/**
 * A merchant or date read under the confident mark is doubtful to the matcher (score.ts), as the
 * server marks it from the receipt's field confidence; NO_DOUBT=1 scores every read field as sure
 * (the matcher before those rules), NO_DATE_DOUBT=1 every read date, to compare.
 */
function doubt(merchant: number | null | undefined, date?: number | null): { merchantDoubtful?: boolean; dateDoubtful?: boolean } {
  if (process.env.NO_DOUBT === '1') return {};
  return {
    ...(typeof merchant === 'number' ? { merchantDoubtful: merchant < CONFIDENT_AT } : {}),
    ...(typeof date === 'number' && process.env.NO_DATE_DOUBT !== '1' ? { dateDoubtful: date < CONFIDENT_AT } : {}),
  };
}

/** The committed extractor on each receipt's cached first tesseract.js reading. */
async function extractorReceipts(ids: readonly string[], set: 'dev' | 'train' = 'dev'): Promise<ReceiptInput[]> {
  const ocr = await devOcr((line) => console.log(line), set);
  // The company's period, as the product passes it (the statements that belong to these receipts).
  const period = statementPeriod(ids);
  return ids.map((id) => {
    const reading = ocr[id];
    const f = reading ? extractReceiptFields(reading.text, reading.words, period ? { period } : {}) : null;
    return { id, merchant: f?.merchant?.value ?? null, date: f?.date?.value ?? null, totalCents: f?.total?.cents ?? null, ...doubt(f?.merchant?.confidence, f?.date?.confidence) };
  });
}

interface Goal {
  threshold: number;
  precision: number;
  recall: number;
}

async function report(label: string, receipts: readonly ReceiptInput[], statements: readonly Statement[], goal: Goal | null): Promise<void> {
  console.log(`\n  ${label}: ${receipts.length} receipts against each statement`);
  for (const threshold of THRESHOLDS) {
    const totals = { proposed: 0, correct: 0, positives: 0 };
    const times: number[] = [];
    let shown: { format: string; lines: string } | null = null;
    for (const s of statements) {
      let proposals: MatchProposal[] = [];
      times.push(...(await runs(5, () => {
        const t0 = performance.now();
        proposals = autoMatch(receipts, s.transactions, { threshold });
        return performance.now() - t0;
      })));
      const o = evaluate(s, proposals);
      totals.proposed += o.proposed;
      totals.correct += o.correct;
      totals.positives += o.positives;
      const precision = o.proposed === 0 ? 1 : o.correct / o.proposed;
      row(`threshold ${threshold}, ${s.format}.csv: precision / recall`, `${precision.toFixed(3)} / ${(o.correct / o.positives).toFixed(3)}`,
        `${o.correct} correct of ${o.proposed} proposed, ${o.positives} receipts with a card line`);
      if (!VERBOSE && threshold !== (goal?.threshold ?? DEFAULT_THRESHOLD)) continue;
      const lines = details(s, receipts, o).join('\n      ');
      if (lines.length === 0) continue;
      if (shown !== null && shown.lines === lines) console.log(`      (same as ${shown.format}.csv)`);
      else {
        console.log(`      ${lines}`);
        shown = { format: s.format, lines };
      }
    }
    const precision = totals.proposed === 0 ? 1 : totals.correct / totals.proposed;
    const recall = totals.correct / totals.positives;
    const met = goal && threshold === goal.threshold
      ? `goal >= ${goal.precision} / >= ${goal.recall}: ${precision >= goal.precision && recall >= goal.recall ? 'met' : 'NOT met'}; ` : '';
    row(`threshold ${threshold}, all statements: precision / recall`, `${precision.toFixed(3)} / ${recall.toFixed(3)}`, `${met}autoMatch median ${fmt(median(times), 2)} ms`);
  }
}

const statements = FORMATS.map(loadStatement);
const labelled = labelledReceipts();
console.log(`Matching: ${labelled.length} dev receipts, statements ${statements.map((s) => `${s.format} (${s.transactions.length} lines)`).join(', ')}`);
await report('matcher alone (labelled fields)', labelled, statements, { threshold: DEFAULT_THRESHOLD, precision: 0.99, recall: 0.95 });
await report('end to end, extractor (extractReceiptFields on the first tesseract.js reading, no retry)', await extractorReceipts(labelled.map((r) => r.id)), statements,
  { threshold: 70, precision: 0.98, recall: 0.9 });
// The same on the train receipts (never tuned on here) against the statement that belongs to them.
const trainStatement = loadStatement('train-spec');
const trainIds = [...trainStatement.truth.keys()];
await report(`end to end on train, extractor (first reading, no retry) against train-spec.csv (${trainStatement.transactions.length} lines)`, await extractorReceipts(trainIds, 'train'), [trainStatement],
  { threshold: 70, precision: 0.98, recall: 0.9 });
const extracted = ocrReceipts(labelled.map((r) => r.id));
if (extracted === null) console.log('\n  end to end, pipeline: skipped (run bench/ocr.ts first to produce bench/.cache/ocr-extracted.json)');
else await report('end to end, pipeline (fields bench/ocr.ts extracted with retries; read when that bench last ran)', extracted, statements, null);
const extractedTrain = ocrReceipts(trainIds, OCR_CACHE_TRAIN);
if (extractedTrain === null) console.log('\n  end to end on train, pipeline: skipped (run bench/ocr.ts --set train first to produce bench/.cache/ocr-extracted-train.json)');
else await report('end to end on train, pipeline (fields bench/ocr.ts --set train extracted with line re-reads and retries) against train-spec.csv', extractedTrain, [trainStatement], { threshold: 70, precision: 0.98, recall: 0.9 });
