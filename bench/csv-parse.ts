/**
 * Micro benchmark: parse a generated 100,000-row card statement five times and print the
 * median time and throughput. Goal: well under one second per parse.
 *
 *   npx tsx bench/csv-parse.ts
 */
import { parseBankStatement } from '../domain/src/csv/index';

const ROWS = 100_000;
const RUNS = 5;

const MERCHANTS = ['STARBUCKS STORE 10423', 'SQ *BLUE BOTTLE, OAKLAND', 'AMAZON MKTPLACE PMTS', 'SHELL OIL 57444', 'UBER   *TRIP', 'HOME DEPOT #4521'];

function statement(rows: number): Uint8Array {
  const lines = ['Transaction Date,Post Date,Description,Category,Type,Amount,Memo'];
  for (let i = 0; i < rows; i++) {
    const month = (i % 12) + 1;
    const day = (i % 28) + 1;
    const date = `${String(month).padStart(2, '0')}/${String(day).padStart(2, '0')}/2024`;
    const cents = 100 + ((i * 7919) % 250_000);
    const amount = `${i % 50 === 0 ? '' : '-'}${Math.floor(cents / 100).toLocaleString('en-US')}.${String(cents % 100).padStart(2, '0')}`;
    const merchant = MERCHANTS[i % MERCHANTS.length] ?? '';
    lines.push(`${date},${date},"${merchant} ${i}",Shopping,Sale,"${amount}",`);
  }
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

const bytes = statement(ROWS);
const times: number[] = [];
let imported = 0;
for (let run = 0; run < RUNS; run++) {
  const start = performance.now();
  const result = parseBankStatement(bytes);
  times.push(performance.now() - start);
  imported = result.rows.length;
  if (result.rowErrors.length > 0) throw new Error(`unexpected row errors: ${JSON.stringify(result.rowErrors.slice(0, 3))}`);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(RUNS / 2)] ?? 0;
console.log(`csv-parse: ${ROWS.toLocaleString('en-US')} rows (${(bytes.length / 1e6).toFixed(1)} MB), ${RUNS} runs`);
console.log(`  runs (ms): ${times.map((t) => t.toFixed(0)).join(', ')}`);
console.log(`  median: ${median.toFixed(0)} ms, ${Math.round(imported / (median / 1000)).toLocaleString('en-US')} rows/s`);
