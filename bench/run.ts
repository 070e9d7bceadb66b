/**
 * `make bench`: every benchmark, one after another, each in its own process so that one's
 * memory and JIT state does not colour the next. Figures are medians of several runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const BENCHES: Array<[file: string, what: string, args?: string[]]> = [
  ['eventstore.ts', 'event store appends and read-model rebuild'],
  ['csv-parse.ts', 'bank statement parsing'],
  ['transactions.ts', 'statement import and transaction lists at 100,000 rows'],
  ['ocr.ts', 'receipt OCR and field extraction on dev, one worker: PP-OCRv5 first, tesseract.js the second opinion (ADR 0019)', ['--workers', '1']],
  ['receipt-model.ts', 'learned receipt fields: merchant-grouped CV on train, dev accuracy, confident share'],
  ['ocr-engines.ts', 'OCR engines on train + dev, one worker: tesseract.js against PaddleOCR on ONNX Runtime (PADDLE_OCR_DIR): text error rate, fields, s/receipt, peak memory (readings cached in bench/.cache)'],
  ['ocr-prep.ts', 'tesseract.js preparations on receipts-train, one worker: character error rate, fields, s/receipt; the product\'s first + retry readings put together (ADR 0019; readings cached in bench/.cache/ocr-prep-*.json)'],
  ['line-reread.ts', 'targeted second reading of the doubtful fields\' lines, train (91) + dev (40), one worker: fields before/after, confident share, s/receipt (ADR 0019; line readings cached in bench/.cache/ocr-lines-*.json)'],
  ['line-readers.ts', 'the fields\' candidate lines of receipts-train read by tesseract (PSM 7) and by PaddleOCR\'s recogniser: line CER with and without spaces, lines whose digits are all right, ms per receipt (lab notes of ADR 0019)'],
  ['../scripts/digit-confusions.ts', 'the OCR\'s one-digit slips counted on receipts-train, and what they mend in dates outside the company\'s period: first readings of train in sample and out of fold (merchant-grouped), and dev (lab notes of ADR 0019)'],
  ['ocr.ts', 'the same reading pipeline on the 91 train receipts (their fields for the end-to-end matching figure on train)', ['--set', 'train']],
  ['ocr.ts', 'the same pipeline on train with each receipt read by the ranker of the merchant-grouped fold it was held out of: the pipeline\'s figure on merchants its ranker never saw', ['--set', 'train', '--cv', '--workers', '1']],
  ['ocr-summary.ts', 'receipt fields, train merchant-grouped CV beside dev, per field with receipt counts (from the two runs above)'],
  ['matching.ts', 'matching precision and recall; end to end from OCR on dev and on train against their statements'],
  ['matching-scale.ts', 'auto-match at scale'],
  ['ai-ledger.ts', 'AI on a ledger: categorisation (grouped CV, seen / new merchants, precision above 0.7), duplicates P/R, recurring series'],
  ['ai-more.ts', 'calendars and advanced matching: iCalendar parsing, trip insights against lines × events, correlation precision / recall on planted trips, ranking in its date window against all transactions'],
  ['analytics.ts', '/analytics/dashboard, /matches/stats and the range export at 1,000,000 transactions, beside the transactions list'],
  ['exports.ts', 'reports: PDF of 10,000 transactions with 1,000 receipt images, xlsx of 100,000 transactions, beside pdfkit / exceljs alone'],
  ['audit.ts', 'hash chain: check of 1,000,000 events (goal >= 200,000/s), cost of hashing on appends against the same store without it, upgrade, audit bundle'],
  ['history.ts', 'history of a record and the transactions list as of a moment at 100,000 transactions, cold and cached, beside the live list'],
  ['responsiveness.ts', 'health and transaction-list latency during a 200,000-row import and 10 OCR jobs, against a quiet baseline, with the projectors inline and in their thread (ADR 0008)'],
  ['projector-wake.ts', 'a one-event write answered after its projection commits, projectors inline against in their thread (ADR 0008)'],
  ['sessions.ts', 'refresh p95 for a user with 10 and with 10,000 past sign-ins, ratio; a user written in 3dfe0f7\'s format (ADR 0022)'],
  ['match-streams.ts', 'match decisions on side streams at 100,000 matches (confirm, reject, manual p95) beside folding the old matching-<company> stream; auto-match after one new receipt at 550 lines a day over 90 and 360 days (ADR 0021)'],
  ['readstore.ts', 'read models in memory against SQLite at 1,000,000 transactions (--rows N for fewer): rebuild (wall, CPU, longest event-loop block), snapshot, resident memory, the five list queries, a new deep page after an edit, restart (ADR 0020)'],
  ['import-cost.ts', 'one 100,000-row import into a company of 100,000 transactions, stage by stage (parse, de-duplication, decide, append, projection per projection; end to end over HTTP with the server\'s CPU per stage) beside a raw insert of the same rows as JSON documents into SQLite, and the floor of the lists\' table (the rows into it with its indexes, raw SQL) (ADR 0027)'],
  ['rebuild-cost.ts', 'where a rebuild of every read model goes at 250,000 transactions (SCALE_TX for another size; data folder cached under /tmp): raw read and parse, projections one by one, SQLite writes and index builds (their floor against the raw read), the rebuild before and after the bulk load, make rebuild, blue-green (ADR 0028)'],
  ['scale-calls.ts', 'the other calls at a company\'s real size (1,000,000 transactions; SCALE_CALLS_DIR to reuse a folder): every GET of the spec as admin and member, the AI calls on one line with /api/health beside them, against /api/health alone (ADR 0029 decisions 10-13 and 17)'],
  ['pdf-memory.ts', 'the server\'s resident memory while PDF receipts are read and after, against the same server before them (ADR 0029 decision 20)'],
  ['scale.ts', 'a company at its real size (1,000,000 transactions, 100,000 receipts and matches, 50 members; SCALE_TX etc. for less): first start, memory, restart after kill -9, latency during an import, lists, match decisions, refresh, auto-match, import and rebuild against raw SQLite, per read store'],
  ['distributed.ts', 'the distributed profile on one Kafka broker and one FerretDB (started here unless KAFKA_BROKERS and MONGO_URL are set): projector catch-up in events/s beside a raw insertMany of the same documents, list p95 at 100,000 transactions (ADR 0032), receipts per minute read by one job-worker process and by two (ADR 0031)'],
];

const only = process.argv.slice(2);
let failed = 0;
for (const [file, what, args = []] of BENCHES) {
  if (only.length > 0 && !only.some((o) => file.startsWith(o))) continue;
  const path = join(import.meta.dirname, file);
  if (!existsSync(path)) {
    console.log(`\n== ${file}: ${what}: not in this checkout yet`);
    continue;
  }
  console.log(`\n== ${[file, ...args].join(' ')}: ${what}`);
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', path, ...args], { stdio: 'inherit' });
  console.log(`   (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  if (r.status !== 0) failed++;
}
if (failed > 0) {
  console.error(`${failed} benchmark(s) failed`);
  process.exit(1);
}
