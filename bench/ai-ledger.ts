/**
 * AI on a company ledger, offline, through the domain code the server runs:
 * categorisation (merchant-grouped CV on history.csv; history -> new.csv accuracy on lines of
 * seen and of new merchants; precision and coverage of answers above 0.7 confidence),
 * duplicate groups against truth.json (precision, recall), recurring series found with their
 * cadence. Another company's ledger in the same layout can be passed as the argument.
 *
 *   node --import tsx bench/ai-ledger.ts [ledger-dir]
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseBankStatement } from '../domain/src/csv/index';
import type { ParsedRow } from '../domain/src/csv/types';
import {
  buildMemory, detectRecurringPatterns, findDuplicateGroups, groupedOutOfFold, predictCategory, trainCategorizer,
  type CategoryRef, type LabelledLine, type OutOfFold,
} from '../domain/src/ai/index';
import { probabilities } from '../domain/src/ai/categorize/model';
import { fmt, row } from './lib';

const dir = process.argv[2] ?? process.env.LEDGER_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'data', 'ledger');
const CONFIDENT = 0.7;

interface Truth { key: string; category: string; seen_merchant: boolean; recurring: { series: string; cadence: string } | null; duplicate_of: string | null }
const rows = (file: string): ParsedRow[] => parseBankStatement(new Uint8Array(readFileSync(join(dir, file)))).rows;
const keyOf = (r: ParsedRow): string => `${r.date}|${r.description}|${(r.amountCents / 100).toFixed(2)}`;
const pct = (a: number, b: number): string => (b === 0 ? 'n/a' : `${fmt((100 * a) / b, 1)} %`);

const history = rows('history.csv');
const fresh = rows('new.csv');
const truthLines = (JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as { new: Truth[] }).new;
const truth = new Map(truthLines.map((t) => [t.key, t]));
// Categories are the company's own master data (cost-codes.csv names them), ids invented here.
const costCodes = existsSync(join(dir, 'cost-codes.csv')) ? readFileSync(join(dir, 'cost-codes.csv'), 'utf8').split(/\r?\n/).slice(1).map((l) => l.split(',').slice(1).join(',').trim()) : [];
const names = [...new Set([...costCodes, ...history.map((r) => r.category ?? '')])].filter((n) => n.length > 0);
const categories: CategoryRef[] = names.map((name, i) => ({ id: `cat-${i + 1}`, name }));
const idOf = new Map(categories.map((c) => [c.name, c.id]));
const nameOf = new Map(categories.map((c) => [c.id, c.name]));
const labelled: LabelledLine[] = history.filter((r) => r.category).map((r) => ({ description: r.description, amountCents: r.amountCents, categoryId: idOf.get(r.category ?? '') ?? '' }));

console.log(`  ledger ${dir}: ${history.length} history lines, ${fresh.length} new lines, ${categories.length} categories; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

// 1. Categorisation.
let t0 = performance.now();
const model = trainCategorizer(labelled, categories);
const trainMs = performance.now() - t0;
const temperature = model.linear?.temperature ?? 1;
const temperatureUnknown = model.linear?.temperatureUnknown ?? 1;
const oof = groupedOutOfFold(labelled, categories, 5);
/** Accuracy, and precision / coverage above CONFIDENT, of out-of-fold scores at a temperature. */
function cvFigures(pick: (o: OutOfFold) => Float64Array | null, t: number) {
  let n = 0, right = 0, conf = 0, confRight = 0;
  for (const o of oof) {
    const scores = pick(o);
    if (!scores) continue;
    const p = probabilities(scores, t);
    let k = 0;
    for (let i = 1; i < p.length; i++) if ((p[i] ?? 0) > (p[k] ?? 0)) k = i;
    const ok = o.classes[k] === o.line.categoryId;
    n++;
    if (ok) right++;
    if ((p[k] ?? 0) > CONFIDENT) {
      conf++;
      if (ok) confRight++;
    }
  }
  return { n, right, conf, confRight };
}
const known = cvFigures((o) => (o.known ? o.scores : null), temperature);
const unknown = cvFigures((o) => o.bareScores, temperatureUnknown);
console.log('\n  categorisation');
row('train on history (model + grouped-CV calibration)', `${fmt(trainMs)} ms`, `temperatures ${temperature} (known kind) / ${temperatureUnknown} (unknown kind)`);
row('history, merchant-grouped 5-fold CV: accuracy', pct(known.right, known.n), `${known.right}/${known.n} lines whose merchant's kind the lexicon names`);
row(`  precision above ${CONFIDENT} / coverage`, `${pct(known.confRight, known.conf)} / ${pct(known.conf, known.n)}`);
row('same CV with the lexicon blind (no concepts): accuracy', pct(unknown.right, unknown.n), `${unknown.right}/${unknown.n} (a merchant nobody knows)`);
row(`  precision above ${CONFIDENT} / coverage`, `${pct(unknown.confRight, unknown.conf)} / ${pct(unknown.conf, unknown.n)}`);

const memory = buildMemory(labelled);
const tally = { seen: [0, 0], unseen: [0, 0], conf: [0, 0] };
const misses = new Map<string, number>();
t0 = performance.now();
for (const r of fresh) {
  const t = truth.get(keyOf(r));
  if (!t) continue;
  const p = predictCategory(r, { model, memory, categories });
  const ok = p.categoryId !== null && nameOf.get(p.categoryId) === t.category;
  const bucket = t.seen_merchant ? tally.seen : tally.unseen;
  bucket[0] = (bucket[0] ?? 0) + (ok ? 1 : 0);
  bucket[1] = (bucket[1] ?? 0) + 1;
  if (p.confidence > CONFIDENT) {
    tally.conf[0] = (tally.conf[0] ?? 0) + (ok ? 1 : 0);
    tally.conf[1] = (tally.conf[1] ?? 0) + 1;
  }
  if (!ok) {
    const k = `${p.merchantKey} -> ${p.categoryId ? nameOf.get(p.categoryId) : 'none'} (is ${t.category})`;
    misses.set(k, (misses.get(k) ?? 0) + 1);
  }
}
const predictMs = (performance.now() - t0) / Math.max(1, fresh.length);
row('new.csv: lines of merchants seen in history', pct(tally.seen[0] ?? 0, tally.seen[1] ?? 0), `${tally.seen[0]}/${tally.seen[1]}  (goal 97 %)`);
row('new.csv: lines of new merchants', pct(tally.unseen[0] ?? 0, tally.unseen[1] ?? 0), `${tally.unseen[0]}/${tally.unseen[1]}  (goal 60 %)`);
row(`new.csv: precision above ${CONFIDENT} confidence`, pct(tally.conf[0] ?? 0, tally.conf[1] ?? 0), `coverage ${pct(tally.conf[1] ?? 0, fresh.length)}  (goal 95 %)`);
row('prediction time per line', `${fmt(predictMs, 3)} ms`);
for (const [m, n] of [...misses].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`    miss x${n}: ${m}`);

// 2. Duplicates (recurring series first: their occurrences are not duplicates). The server sees
// the whole ledger, so both are found over history and new lines; truth is about new lines
// (a group of history lines only is outside it).
const asRecord = (prefix: string) => (r: ParsedRow, i: number) => ({ id: `${prefix}${i}`, date: r.date, amountCents: r.amountCents, description: r.description, categoryName: r.category ?? null, ownerId: `${r.firstName ?? ''} ${r.lastName ?? ''}`.trim() || null });
const records = fresh.map(asRecord('n'));
const everything = [...history.map(asRecord('h')), ...records];
const keyById = new Map([...history.map((r, i): [string, string] => [`h${i}`, keyOf(r)]), ...fresh.map((r, i): [string, string] => [`n${i}`, keyOf(r)])]);
const isNew = (id: string) => id.startsWith('n');
t0 = performance.now();
const patterns = detectRecurringPatterns(everything);
const recurringMs = performance.now() - t0;
const series = new Map<string, string>();
for (const p of patterns) for (const id of p.memberIds) series.set(id, p.id);
t0 = performance.now();
const groups = findDuplicateGroups(everything, { recurringSeries: series }).filter((g) => g.ids.some(isNew));
const dupMs = performance.now() - t0;
const truePairs = new Set<string>();
for (const t of truthLines) if (t.duplicate_of) truePairs.add([t.key, t.duplicate_of].sort().join(' ~ '));
let hit = 0;
const wrongGroups: string[] = [];
for (const g of groups) {
  const pair = g.ids.map((id) => keyById.get(id) ?? '').sort().join(' ~ ');
  if (truePairs.has(pair)) hit++;
  else wrongGroups.push(`${pair} (${g.confidence})`);
}
console.log('\n  duplicates');
row('groups found / true pairs', `${groups.length} / ${truePairs.size}`, `${fmt(dupMs, 1)} ms for ${everything.length} lines`);
row('precision', groups.length ? fmt(hit / groups.length, 3) : 'n/a', '(goal 0.95)');
row('recall', truePairs.size ? fmt(hit / truePairs.size, 3) : 'n/a', '(goal 0.90)');
for (const w of wrongGroups.slice(0, 5)) console.log(`    not a true pair: ${w}`);

// 3. Recurring series.
const truthSeries = new Map<string, { cadence: string; keys: Set<string> }>();
for (const t of truthLines) {
  if (!t.recurring) continue;
  const s = truthSeries.get(t.recurring.series) ?? { cadence: t.recurring.cadence, keys: new Set<string>() };
  s.keys.add(t.key);
  truthSeries.set(t.recurring.series, s);
}
console.log('\n  recurring');
let found = 0;
const matched = new Set<string>();
for (const [name, s] of truthSeries) {
  const p = patterns.find((x) => x.memberIds.filter((id) => s.keys.has(keyById.get(id) ?? '')).length >= Math.ceil(0.8 * s.keys.size));
  const ok = p !== undefined && p.frequency === s.cadence;
  if (ok) found++;
  if (p) matched.add(p.id);
  console.log(`    ${name.padEnd(20)} ${s.cadence.padEnd(9)} ${s.keys.size} lines: ${p ? `${p.frequency}, ${p.occurrenceCount} found, next ${p.nextExpectedDate}` : 'not found'} ${ok ? 'ok' : 'MISSED'}`);
}
row('series found with their cadence', `${found} / ${truthSeries.size}`, `${fmt(recurringMs, 1)} ms`);
const extra = patterns.filter((p) => !matched.has(p.id) && p.memberIds.some(isNew));
row('patterns over new lines that are no true series', String(extra.length));
for (const p of extra.slice(0, 5)) console.log(`    extra: ${p.description} ${p.frequency} x${p.occurrenceCount}`);
