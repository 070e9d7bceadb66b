/**
 * Reports (ADR 0018): a PDF of 10,000 transactions with 1,000 receipt images, and an Excel
 * workbook of 100,000 transactions, through the product's own path (rows read from the embedded
 * read store a page at a time on this thread, rendered in a pool worker, bytes streamed back),
 * beside a baseline in the same run: pdfkit / exceljs writing the same rows (and the same image
 * files) from memory with no logic of ours (no summary, grouping, scoping, downscaling,
 * neutralising, flow control or worker).
 *
 * Both render at nice 10 (the product's pool workers run at that priority; the baseline's thread
 * is set to it), so a busy machine weighs on both alike.
 *
 * Each run is its own child process, so its peak memory is its own: the child reports VmHWM
 * (peak resident set) from /proc, once over its whole life and once for the report alone (the
 * peak is reset with /proc/self/clear_refs after the rows and files are set up). It also reports
 * the longest event-loop stall of the request thread during the report, and the report's CPU time
 * by thread (the request thread, the pool worker, libvips' threads, the rest: libuv's pool and
 * V8's helper threads).
 *
 * The PDF's receipts have their print copies (ADR 0018: made once per receipt when it is read,
 * here by the same function before the runs, untimed); the case `pdf-old` runs the same report
 * as on a data folder from before print copies (none stored: the report downscales the files
 * and makes the copies, here not kept, so every run is a first one).
 *
 * Memory: the goals are judged on the whole process's peak resident set (what an operator
 * sees); the report's own increase over the idle process (read store loaded, pool started) is
 * printed beside it, and what the idle process holds is broken down.
 *
 *   npx tsx bench/exports.ts            # 3 runs of each, medians
 *   EXPORT_RUNS=1 EXPORT_CASES=pdf npx tsx bench/exports.ts   # one run, the PDF case only
 *   EXPORT_INPROC=1 EXPORT_CHILD_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' ...   # one thread, profiled
 *   EXPORT_ROWS=request ...   # SQLite: the rows read on the request thread, as before ADR 0018's third amendment
 *
 * With SQLite (the default) the report's pool worker reads the rows itself on a read-only
 * connection of its own, as the server does; EXPORT_ROWS=request measures the path before it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { BlobStore, ReadStore, ReportMeta, ReportSettings } from '@paperlink/domain';
import type { RenderInput } from '../infra/src/reports/task';
import type { WorkerPool as Pool } from '../infra/src/workers/pool';
import { fmt, median, row } from './lib';

const RECEIPTS_DEV = join(import.meta.dirname, '..', '..', 'shared', 'data', 'receipts-dev');
const COMPANY = 'bench-co';
/** The read store the product reads rows from: 'sqlite' (its default) or 'memory'. */
const STORE = process.env.EXPORT_STORE === 'memory' ? 'memory' : 'sqlite';
const USER = 'bench-user';
/** SQLite: the worker reads the rows itself (the product's path), or the request thread does (EXPORT_ROWS=request, the path before). */
const WORKER_ROWS = STORE === 'sqlite' && process.env.EXPORT_ROWS !== 'request';

interface Result {
  ms: number;
  /** CPU time of the whole process (every thread) for the report: what the machine's load cannot stretch. */
  cpuMs: number;
  bytes: number;
  peakMb: number;
  reportPeakMb: number;
  /** Resident set just before the report (read store loaded, pool started). */
  rssBeforeMb: number;
  /** Resident set after the modules were imported, and after the read store was filled (ours only). */
  rssModulesMb?: number;
  rssStoreMb?: number;
  stallMs: number;
  /** CPU time of the report by thread (Linux): the request thread, libvips' threads, the busiest other thread (the pool worker that renders), the rest (libuv's pool, V8's helpers). */
  threads: { main: number; libvips: number; busiest: number; rest: number };
}

/** A sink that counts bytes (the response). */
function counter(): Writable & { bytes: number } {
  const w = new Writable({
    write(chunk: Buffer, _e, cb) {
      w.bytes += chunk.length;
      cb();
    },
  }) as Writable & { bytes: number };
  w.bytes = 0;
  return w;
}

const peakMb = (field: 'VmHWM' | 'VmRSS' = 'VmHWM') => Number(/\d+/.exec(readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(field))!)![0]) / 1024;
/** CPU milliseconds of each thread of this process so far, by thread id, with the main thread and libvips' threads marked. */
function threadCpu(): Map<string, { kind: 'main' | 'libvips' | 'other'; ms: number }> {
  const out = new Map<string, { kind: 'main' | 'libvips' | 'other'; ms: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      // utime and stime, in clock ticks (100 per second on Linux).
      out.set(tid, { kind: tid === String(process.pid) ? 'main' : name.startsWith('libvips') ? 'libvips' : 'other', ms: (Number(fields[11]) + Number(fields[12])) * 10 });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
function threadSplit(before: ReturnType<typeof threadCpu>): Result['threads'] {
  const split = { main: 0, libvips: 0, busiest: 0, rest: 0 };
  const others: number[] = [];
  for (const [tid, t] of threadCpu()) {
    const ms = t.ms - (before.get(tid)?.ms ?? 0);
    if (t.kind === 'other') others.push(ms);
    else split[t.kind] += ms;
  }
  others.sort((a, b) => b - a);
  split.busiest = others[0] ?? 0;
  split.rest = others.slice(1).reduce((a, b) => a + b, 0);
  return split;
}
const resetPeak = () => writeFileSync('/proc/self/clear_refs', '5');

/** Deterministic transactions: the same in every child. `matched` of them (the first ones) carry one receipt each. */
function transactionDocs(n: number, matched: number) {
  const cats = ['Fuel', 'Meals', 'Office', 'Travel', 'Tools', 'Materials', 'Software', 'Parking'];
  const merchants = ['Shell', 'Home Depot', 'Staples', 'Delta', 'Uber', 'Lowe’s', 'AWS', 'Café Zürich', 'Łódź Supplies', 'Joe & Co'];
  const out = [];
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(2026, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);
    const amountCents = -((i * 7919) % 250_000) - 100;
    out.push({
      _id: `t${String(i).padStart(7, '0')}`,
      companyId: COMPANY,
      userId: USER,
      transaction_date: day,
      description: i % 97 === 0 ? `=HYPERLINK("http://x.example","${i}")` : `${merchants[i % merchants.length]} #${i % 1000}`,
      amountCents,
      absCents: Math.abs(amountCents),
      salesTaxCents: i % 3 === 0 ? Math.round(Math.abs(amountCents) * 0.07) : null,
      external_transaction_id: null,
      currency: 'USD',
      category_name: cats[i % cats.length]!,
      job_number_name: `J-${100 + (i % 40)}`,
      cost_code_name: `01-${200 + (i % 25)}`,
      receipt_count: i < matched ? 1 : 0,
      receipts: i < matched ? [`receipt-${i}.jpg`] : [],
      importId: 'imp',
      importRevision: 0,
      fileHash: 'h',
      fileName: 'bench.csv',
      row: i + 2,
      importedBy: USER,
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-01T00:00:00.000Z',
      dedupKey: `k${i}`,
    });
  }
  return out;
}

/** The image files of the PDF run: 40 real receipt scans (embedded as they are), every 10th file a 12 MP phone photo (downscaled by the report). */
function prepareImages(dir: string, count: number): Promise<string[]> {
  return (async () => {
    const sharp = (await import('sharp')).default;
    const scans = readdirSync(RECEIPTS_DEV).filter((f) => f.endsWith('.jpg')).sort().map((f) => readFileSync(join(RECEIPTS_DEV, f)));
    // Phone photos: 12 MP, a few MB each.
    const large = await Promise.all(scans.slice(0, 10).map((b) => sharp(b).resize({ width: 3024, height: 4032, fit: 'fill' }).jpeg({ quality: 92 }).toBuffer()));
    const { LocalBlobStore } = await import('../infra/src/blobs/local');
    const blobs = new LocalBlobStore(dir);
    const { printCopy } = await import('../infra/src/receipts/thumbnail');
    const { PRINT_COPY } = await import('@paperlink/domain');
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const base = i % 10 === 0 ? large[(i / 10) % large.length]! : scans[i % scans.length]!;
      // Distinct files: bytes after the JPEG's end marker, which decoders ignore.
      const bytes = Buffer.concat([base, Buffer.from(`receipt ${i}`)]);
      const { sha256 } = await blobs.put(bytes);
      // The print copy the product makes when it reads the receipt (the OCR job, in a pool worker).
      await blobs.putDerived(sha256, PRINT_COPY, await printCopy(bytes));
      keys.push(sha256);
    }
    await blobs.close();
    return keys;
  })();
}

const SETTINGS: ReportSettings = {
  includeMatched: true, includeUnmatched: true, includeOCRData: false, maxPagesPerReceipt: 'all', groupBy: 'date',
  includeAnalytics: false, includeCharts: true, includeSummary: true, includeDetails: true,
};

/** The bench's rows in a read store: the user, `n` transactions, `images` receipts matched to the first ones. */
async function fillStore(store: ReadStore, n: number, images: number, keys: string[]): Promise<void> {
  const { allProjections } = await import('@paperlink/projections');
  for (const p of allProjections()) for (const [name, indexes] of Object.entries(p.collections)) await store.ensureIndexes(name, indexes);
  const writes = new Map<string, Map<string, Record<string, unknown> & { _id: string } | null>>();
  const put = (coll: string, doc: Record<string, unknown> & { _id: string }) => {
    if (!writes.has(coll)) writes.set(coll, new Map());
    writes.get(coll)!.set(doc._id, doc);
  };
  put('users', { _id: USER, email: 'b@example.com', firstName: 'Bench', lastName: 'User', emailVerified: true, memberSince: '2026-01-01', lastLogin: null, sessionsRevokedAt: null });
  for (const t of transactionDocs(n, images)) put('transactions', t);
  for (let i = 0; i < images; i++) {
    const tId = `t${String(i).padStart(7, '0')}`;
    put('receipts', {
      _id: `r${i}`, companyId: COMPANY, userId: USER, original_filename: `receipt-${i}.jpg`, content_type: 'image/jpeg', kind: 'jpeg', file_size: 100_000, sha256: keys[i]!,
      duplicate_of: null, upload_date: '2026-11-01T00:00:00.000Z', processing_status: 'completed', failure_reason: null, ocr_run: 1, ocr_source: 'ocr', ocr_confidence: 90,
      field_confidence: {}, extracted_date: null, extractedCents: null, absCents: null, extracted_merchant: null, extracted_description: null, taxCents: null, corrected: [],
      receipt_date: '2026-11-01', match_count: 1, created_at: '2026-11-01T00:00:00.000Z', updated_at: '2026-11-01T00:00:00.000Z',
    });
    put('matches', { _id: `m${i}`, companyId: COMPANY, receiptId: `r${i}`, transactionId: tId, confidence: 90, evidence: { reasons: [] }, status: 'confirmed', origin: 'manual', suggested_by: USER, suggested_at: '2026-11-01T00:00:00.000Z', decided_by: USER, decided_at: '2026-11-01T00:00:00.000Z', withdrawn_reason: null });
  }
  await store.commit(writes as never, []);
  writes.clear();
}

/** A SQLite read store file holding the bench's rows (made once per case, opened by each run). */
async function sqliteStoreFile(file: string, n: number, images: number, keys: string[]): Promise<void> {
  const { SqliteReadStore } = await import('../infra/src/readstore/sqlite');
  const { listIndexes } = await import('../infra/src/readstore/sqlite-indexes');
  const store = new SqliteReadStore(file, { extraIndexes: listIndexes() });
  await fillStore(store, n, images, keys);
  await store.close();
}

async function ours(kind: 'pdf' | 'pdf-old' | 'xlsx', n: number, images: number, blobDir: string, keys: string[]): Promise<Result> {
  const { EmbeddedReadStore } = await import('../infra/src/readstore/embedded');
  const { LocalBlobStore } = await import('../infra/src/blobs/local');
  const { WorkerPool } = await import('../infra/src/workers/pool');
  const { renderReport } = await import('../infra/src/reports/run');
  const { allProjections } = await import('@paperlink/projections');
  const { ExportReader } = await import('@paperlink/query-api');
  const rssModulesMb = peakMb('VmRSS');
  // The product's read store: SQLite by default (READ_STORE, ADR 0020), opened on the file the
  // parent filled (a server started on its data folder); or in memory (EXPORT_STORE=memory), filled here.
  const store: ReadStore = STORE === 'memory'
    ? new EmbeddedReadStore()
    : new (await import('../infra/src/readstore/sqlite')).SqliteReadStore(process.env.EXPORT_RS_FILE!, {
      extraIndexes: (await import('../infra/src/readstore/sqlite-indexes')).listIndexes(),
      // A diagnosis, not the product's setting (which is the store's default): how much of the memory is SQLite's page cache.
      ...(process.env.EXPORT_RS_CACHE_MB ? { cacheMb: Number(process.env.EXPORT_RS_CACHE_MB) } : {}),
    });
  if (STORE === 'memory') await fillStore(store, n, images, keys);
  else for (const p of allProjections()) for (const [name, indexes] of Object.entries(p.collections)) await store.ensureIndexes(name, indexes);
  const rssStoreMb = peakMb('VmRSS');
  const local = new LocalBlobStore(blobDir);
  // pdf-old: a data folder from before print copies (none found; the copies the report makes are dropped, so each run is a first one).
  const blobs: BlobStore = kind === 'pdf-old' ? Object.assign(Object.create(local) as BlobStore, { getDerived: async () => null, putDerived: async () => {} }) : local;
  // EXPORT_INPROC=1: the render task runs on this thread (one thread to profile with --cpu-prof; not a measurement).
  const pool = process.env.EXPORT_INPROC
    ? ({ run: async (_task: 'report', input: RenderInput) => (await import('../infra/src/reports/task')).renderReportTask(input), close: async () => {} } as unknown as Pool)
    : new WorkerPool({ size: 2 });
  const format = kind === 'xlsx' ? 'excel' : 'pdf';
  const meta = (company: string): ReportMeta => ({
    type: 'transactions', format, title: 'Bench report', company, generatedBy: 'Bench User', generatedAt: '2026-11-23T00:00:00.000Z', period: 'All dates', settings: SETTINGS, receiptLinkBase: 'http://localhost',
  });
  const run = async (companyId: string) => {
    const reader = new ExportReader(store, blobs, 'transactions', { companyId }, SETTINGS);
    const out = counter();
    // As the server does (infra/src/app.ts): with SQLite the report's worker reads the rows on a connection of its own.
    const rows = { type: 'transactions' as const, scope: { companyId }, settings: SETTINGS, attachments: format === 'pdf', linkBase: 'http://localhost' };
    const job = { meta: meta(companyId), admin: true, ...(WORKER_ROWS ? { ownRows: { file: process.env.EXPORT_RS_FILE!, ...rows } } : {}) };
    await renderReport(pool, job, reader.source({ attachments: rows.attachments, linkBase: rows.linkBase }), out, blobs);
    await reader.printCopiesKept();
    return out.bytes;
  };
  // The pool's workers start and load their modules once per server, not per report.
  await run('empty-company');
  const rssBeforeMb = peakMb('VmRSS');
  const before = peakMb();
  resetPeak();
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const threads0 = threadCpu();
  const t = performance.now();
  const cpu0 = process.cpuUsage();
  const bytes = await run(COMPANY);
  const cpu = process.cpuUsage(cpu0);
  const ms = performance.now() - t;
  h.disable();
  const threads = threadSplit(threads0);
  const reportPeakMb = peakMb();
  await pool.close();
  await store.close();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes, peakMb: Math.max(before, reportPeakMb), reportPeakMb, rssBeforeMb, rssModulesMb, rssStoreMb, stallMs: h.max / 1e6, threads };
}

async function baseline(kind: 'pdf' | 'pdf-old' | 'xlsx', n: number, images: number, blobDir: string, keys: string[]): Promise<Result> {
  const docs = transactionDocs(n, images);
  const rows = docs.map((d) => [d.transaction_date, d.description, d.category_name, d.cost_code_name, d.job_number_name, 'Bench User', d.receipt_count > 0 ? 'Matched' : 'Unmatched', (d.amountCents / 100).toFixed(2)]);
  const files = kind !== 'xlsx' ? keys.slice(0, images).map((k) => readFileSync(join(blobDir, k.slice(0, 2), k.slice(2, 4), k))) : [];
  const rssBeforeMb = peakMb('VmRSS');
  const before = peakMb();
  resetPeak();
  // The product renders in a pool worker at nice 10 (infra/src/workers/worker.ts); the baseline
  // renders at the same priority, so a busy machine slows both alike.
  setPriority(10);
  const out = counter();
  const threads0 = threadCpu();
  const t = performance.now();
  const cpu0 = process.cpuUsage();
  if (kind !== 'xlsx') {
    const PDFDocument = (await import('pdfkit')).default;
    const { FONT_REGULAR } = await import('../infra/src/reports/format');
    const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: 36 });
    const done = new Promise((resolve) => out.on('finish', resolve));
    doc.pipe(out);
    doc.registerFont('body', FONT_REGULAR);
    doc.font('body').fontSize(7.5);
    const widths = [58, 190, 100, 70, 70, 90, 56, 76];
    let y = 36;
    rows.forEach((r, i) => {
      if (y + 13 > doc.page.height - 46) {
        doc.addPage();
        y = 36;
      }
      let x = 36;
      r.forEach((v, c) => {
        doc.text(v, x + 3, y + 3, { lineBreak: false });
        x += widths[c]!;
      });
      y += 13;
      if (i < files.length) {
        if (y + 380 > doc.page.height - 46) {
          doc.addPage();
          y = 36;
        }
        doc.image(files[i]!, 56, y, { fit: [300, 380] });
        y += 386;
      }
    });
    doc.end();
    await done;
  } else {
    const ExcelJS = (await import('exceljs')).default;
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    const ws = wb.addWorksheet('Transactions');
    for (const r of rows) ws.addRow(r).commit();
    ws.commit();
    await wb.commit();
  }
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  const reportPeakMb = peakMb();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes: out.bytes, peakMb: Math.max(before, reportPeakMb), reportPeakMb, rssBeforeMb, stallMs: 0, threads: threadSplit(threads0) };
}

async function child(): Promise<void> {
  const [, , , who, kind, n, images, blobDir, keysFile] = process.argv;
  const keys = JSON.parse(readFileSync(keysFile!, 'utf8')) as string[];
  const fn = who === 'ours' ? ours : baseline;
  const r = await fn(kind as 'pdf' | 'pdf-old' | 'xlsx', Number(n), Number(images), blobDir!, keys);
  console.log(`RESULT ${JSON.stringify(r)}`);
  // A CPU profile (--cpu-prof) is written only on a normal exit.
  if (!process.env.EXPORT_INPROC) process.exit(0);
}

async function main(): Promise<void> {
  const runs = Number(process.env.EXPORT_RUNS ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-exports-'));
  try {
    console.log(`  load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; read store: ${STORE} (EXPORT_STORE=memory|sqlite; the product's default is sqlite); rows read ${WORKER_ROWS ? 'by the report\'s worker' : 'on the request thread'}`);
    const keys = await prepareImages(join(dir, 'blobs'), 1000);
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify(keys));
    const cases: Array<[label: string, kind: 'pdf' | 'pdf-old' | 'xlsx', n: number, images: number, limitS: number, limitMb: number]> = [
      ['PDF, 10,000 transactions + 1,000 receipt images (their print copies stored)', 'pdf', 10_000, 1000, 10, 500],
      ['xlsx, 100,000 transactions', 'xlsx', 100_000, 0, 10, 300],
      ['PDF as above on old data: no print copies stored, the report makes them', 'pdf-old', 10_000, 1000, 10, 500],
    ];
    // pdf-old only when asked for (EXPORT_CASES=pdf-old): it is the figure before print copies.
    const only = process.env.EXPORT_CASES?.split(',') ?? ['pdf', 'xlsx'];
    for (const [label, kind, n, images, limitS, limitMb] of cases) {
      if (only && !only.includes(kind)) continue;
      console.log(`\n  ${label} (goal: ≤ ${limitS} s, ≤ ${limitMb} MB peak), ${runs} runs each, medians`);
      const got: Record<'ours' | 'baseline', Result[]> = { ours: [], baseline: [] };
      const rsFile = join(dir, `readmodels-${kind}.sqlite`);
      if (STORE === 'sqlite') await sqliteStoreFile(rsFile, n, images, keys);
      for (let i = 0; i < runs; i++) {
        for (const who of ['ours', 'baseline'] as const) {
          const r = spawnSync(process.execPath, [...(process.env.EXPORT_CHILD_FLAGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', import.meta.filename, '--child', who, kind, String(n), String(images), join(dir, 'blobs'), keysFile], { encoding: 'utf8', maxBuffer: 1 << 24, env: { ...process.env, EXPORT_RS_FILE: rsFile } });
          const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
          if (!line) throw new Error(`${who} ${kind} failed: ${r.stderr.slice(-2000)}`);
          got[who].push(JSON.parse(line.slice(7)) as Result);
        }
      }
      const m = (who: 'ours' | 'baseline', k: Exclude<keyof Result, 'threads' | 'rssModulesMb' | 'rssStoreMb'>) => median(got[who].map((r) => r[k]));
      row('ours: time', `${fmt(m('ours', 'ms') / 1000, 2)} s`, `baseline ${fmt(m('baseline', 'ms') / 1000, 2)} s, ratio ${fmt(m('ours', 'ms') / m('baseline', 'ms'), 2)}x`);
      row('ours: CPU time, all threads', `${fmt(m('ours', 'cpuMs') / 1000, 2)} s`, `baseline ${fmt(m('baseline', 'cpuMs') / 1000, 2)} s, ratio ${fmt(m('ours', 'cpuMs') / m('baseline', 'cpuMs'), 2)}x`);
      row('ours: peak RSS of the process (whole run): the goal', `${fmt(m('ours', 'peakMb'))} MB`, `goal ≤ ${limitMb} MB: ${m('ours', 'peakMb') <= limitMb ? 'met' : 'NOT met'}; baseline ${fmt(m('baseline', 'peakMb'))} MB`);
      row('ours: peak RSS while the report is made', `${fmt(m('ours', 'reportPeakMb'))} MB`, `baseline ${fmt(m('baseline', 'reportPeakMb'))} MB`);
      row('ours: RSS of the idle process before it', `${fmt(m('ours', 'rssBeforeMb'))} MB`, `after modules ${fmt(median(got.ours.map((r) => r.rssModulesMb ?? 0)))} MB, store ${STORE === 'memory' ? 'filled' : 'opened'} ${fmt(median(got.ours.map((r) => r.rssStoreMb ?? 0)))} MB, then the pool started; baseline (its rows in memory) ${fmt(m('baseline', 'rssBeforeMb'))} MB`);
      row("ours: the report's own increase over it", `${fmt(median(got.ours.map((r) => r.reportPeakMb - r.rssBeforeMb)))} MB`, `baseline ${fmt(median(got.baseline.map((r) => r.reportPeakMb - r.rssBeforeMb)))} MB`);
      row('ours: file size', `${fmt(m('ours', 'bytes') / 1e6, 1)} MB`, `baseline ${fmt(m('baseline', 'bytes') / 1e6, 1)} MB`);
      row('ours: longest request-thread stall during it', `${fmt(m('ours', 'stallMs'), 1)} ms`, WORKER_ROWS ? 'rows read and rendered in the worker' : 'reading rows in pages here; rendering in the worker');
      const th = (who: 'ours' | 'baseline', k: keyof Result['threads']) => fmt(median(got[who].map((r) => r.threads[k])) / 1000, 2);
      row('ours: CPU by thread (s)', `request ${th('ours', 'main')}, worker ${th('ours', 'busiest')}`, `libvips ${th('ours', 'libvips')}, others ${th('ours', 'rest')}; baseline: its thread ${th('baseline', 'main')}, libvips ${th('baseline', 'libvips')}, others ${th('baseline', 'rest')}`);
    }
    console.log(`\n  load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child();
else await main();
