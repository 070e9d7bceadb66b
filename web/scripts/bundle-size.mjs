// Prints the gzipped size of the JavaScript the first screen needs (the entry chunk and its
// static imports, from Vite's manifest-free output: what index.html loads) and fails above 200 KB.
// Each lazily loaded chunk, with the static imports it adds beyond the first screen, has a budget
// too (150 KB: the dashboard's charts, recharts, are the largest). Usage:
//   node web/scripts/bundle-size.mjs [dist folder, default web/dist]
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const FIRST_SCREEN_KB = 200;
const LAZY_CHUNK_KB = 150;
const dist = process.argv[2] ? resolve(process.argv[2]) : new URL('../dist/', import.meta.url).pathname;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const entries = [...html.matchAll(/<script[^>]+src="\/?([^"]+\.js)"/g), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/?([^"]+\.js)"/g)].map((m) => m[1]);
const gz = new Map();
const sizeOf = (f) => gz.get(f) ?? gz.set(f, gzipSync(readFileSync(join(dist, f))).length).get(f);

/** A chunk and every chunk it imports statically (dynamic import() chunks load later). */
function closure(starts) {
  const seen = new Set();
  const queue = [...starts];
  while (queue.length) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(join(dist, file), 'utf8');
    // static imports only: `import ... from "./x.js"` / `import "./x.js"`
    for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[^'"();]*?from\s*)?["']\.\/([^"']+\.js)["']/g)) queue.push(join('assets', m[1]));
  }
  return seen;
}
const kb = (bytes) => (bytes / 1024).toFixed(1);

const first = closure(entries);
let total = 0;
for (const f of first) total += sizeOf(f);
const all = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js')).map((f) => join('assets', f));
console.log(`first-screen JavaScript: ${kb(total)} KB gzipped in ${first.size} file(s) (of ${all.length} chunks); limit ${FIRST_SCREEN_KB} KB`);

const lazy = all.filter((f) => !first.has(f)).map((f) => {
  let bytes = 0;
  for (const g of closure([f])) if (!first.has(g)) bytes += sizeOf(g);
  return { f, bytes };
}).sort((a, b) => b.bytes - a.bytes);
console.log(`largest lazy chunks (with what they add to the first screen): ${lazy.slice(0, 3).map((c) => `${c.f.replace('assets/', '')} ${kb(c.bytes)} KB`).join(', ')}; limit ${LAZY_CHUNK_KB} KB each`);
const over = lazy.filter((c) => c.bytes > LAZY_CHUNK_KB * 1024);
if (over.length) console.log(`over the lazy-chunk budget: ${over.map((c) => c.f).join(', ')}`);
if (total > FIRST_SCREEN_KB * 1024 || over.length) process.exit(1);
