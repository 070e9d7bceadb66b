// Prints the gzipped size of the JavaScript the first screen needs (the entry chunk and its
// static imports, from Vite's manifest-free output: what index.html loads) and fails above 200 KB.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url).pathname;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const entries = [...html.matchAll(/<script[^>]+src="\/?([^"]+\.js)"/g), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/?([^"]+\.js)"/g)].map((m) => m[1]);
const seen = new Set();
const queue = [...entries];
while (queue.length) {
  const file = queue.shift();
  if (seen.has(file)) continue;
  seen.add(file);
  const code = readFileSync(join(dist, file), 'utf8');
  // static imports only: `import ... from "./x.js"` / `import "./x.js"` (dynamic import() chunks load later)
  for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[^'"();]*?from\s*)?["']\.\/([^"']+\.js)["']/g)) queue.push(join('assets', m[1]));
}
let total = 0;
for (const f of seen) total += gzipSync(readFileSync(join(dist, f))).length;
const all = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js'));
console.log(`first-screen JavaScript: ${(total / 1024).toFixed(1)} KB gzipped in ${seen.size} file(s) (of ${all.length} chunks); limit 200 KB`);
if (total > 200 * 1024) process.exit(1);
