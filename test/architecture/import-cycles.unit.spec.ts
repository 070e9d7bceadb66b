import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = ['domain', 'command-api', 'projections', 'query-api', 'infra'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.ts$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

/** Relative imports of a file, resolved to files (type-only imports too: they tie modules as tightly to a reader). */
function importsOf(file: string, known: Set<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g)) {
    const base = resolve(dirname(file), m[1]!.replace(/\.js$/, ''));
    const hit = [`${base}.ts`, join(base, 'index.ts')].find((f) => known.has(f));
    if (hit) out.push(hit);
  }
  return out;
}

/** The cycles among files (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function cycles(files: string[]): string[][] {
  const known = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f, known)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.map((f) => relative(ROOT, f)).sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

describe('the server packages', () => {
  it('have no import cycle among their files', () => {
    const files = PACKAGES.flatMap((p) => sources(join(ROOT, p, 'src')));
    expect(files.length).toBeGreaterThan(300);
    expect(cycles(files)).toEqual([]);
  });

  it('the check finds a cycle where there is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b';\nexport const a = () => b;\n");
    writeFileSync(join(dir, 'b.ts'), "import type { a } from './a';\nexport const b = 1 as unknown as typeof a;\n");
    writeFileSync(join(dir, 'c.ts'), "import { a } from './a';\nexport const c = a;\n");
    expect(cycles(sources(dir)).map((c) => c.map((f) => f.split('/').pop()))).toEqual([['a.ts', 'b.ts']]);
  });
});
