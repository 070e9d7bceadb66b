/**
 * Attributes the request thread's stalls (bench/stall-log.mjs) to their causes from a CPU
 * profile of the same run (BENCH_CPU_PROF): for every stall over 30 ms in the load phase, the
 * profile's samples inside it, grouped by the innermost frame of our own code (else the leaf:
 * "(garbage collector)", "(program)", a native call). Prints the stalls and their causes in total.
 *   node --import tsx bench/stall-attribute.ts <stall log> <main thread .cpuprofile>
 */
import { readFileSync } from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; startTime: number; samples: number[]; timeDeltas: number[] }

const [logFile, profFile] = process.argv.slice(2);
const lines = readFileSync(logFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; startUs: number; endUs?: number; ms: number; phase?: string; type?: number });
const start = lines.find((l) => l.kind === 'mark' && l.phase === 'load-start')?.startUs ?? -Infinity;
const end = lines.find((l) => l.kind === 'mark' && l.phase === 'load-end')?.startUs ?? Infinity;
const stalls = lines.filter((l) => l.kind === 'stall' && l.endUs! >= start && l.startUs <= end);
const gcs = lines.filter((l) => l.kind === 'gc' && l.startUs >= start && l.startUs <= end);

const prof = JSON.parse(readFileSync(profFile!, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const ours = (n: Node) => /\/work\/main\/(?!node_modules)/.test(n.callFrame.url);
const short = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*\/work\/main\//, '').replace(/^file:\/\//, '')}:${n.callFrame.lineNumber + 1}`;
const label = (id: number): string => {
  const leaf = byId.get(id)!;
  if (!leaf.callFrame.url) {
    // a native leaf: name it with its innermost caller of ours
    for (let p = parent.get(id); p !== undefined; p = parent.get(p)) if (ours(byId.get(p)!)) return `${leaf.callFrame.functionName} < ${short(byId.get(p)!)}`;
    return leaf.callFrame.functionName;
  }
  for (let p: number | undefined = id; p !== undefined; p = parent.get(p)) if (ours(byId.get(p)!)) return short(byId.get(p)!);
  return short(leaf);
};

const times: number[] = [];
let t = prof.startTime;
for (const d of prof.timeDeltas) times.push((t += d));

const total = new Map<string, number>();
console.log(`load phase ${((end - start) / 1e6).toFixed(1)} s: ${stalls.length} stalls over 30 ms, ${stalls.reduce((a, s) => a + s.ms, 0)} ms in all; GC pauses >= 5 ms: ${gcs.length}, ${gcs.reduce((a, g) => a + g.ms, 0)} ms (max ${Math.max(0, ...gcs.map((g) => g.ms))})`);
for (const s of stalls) {
  const here = new Map<string, number>();
  for (let i = 0; i < prof.samples.length; i++) {
    if (times[i]! < s.startUs || times[i]! > s.endUs!) continue;
    const dt = (prof.timeDeltas[i + 1] ?? 0) / 1000;
    const k = label(prof.samples[i]!);
    here.set(k, (here.get(k) ?? 0) + dt);
  }
  const top = [...here].sort((a, b) => b[1] - a[1]).filter(([k]) => k !== '(idle)');
  for (const [k, ms] of top) total.set(k, (total.get(k) ?? 0) + ms);
  console.log(`stall ${s.ms} ms at +${((s.startUs - start) / 1e6).toFixed(2)} s: ${top.slice(0, 3).map(([k, ms]) => `${k} ${ms.toFixed(0)}`).join(' | ')}`);
}
console.log('\ncauses over all stalls (ms):');
for (const [k, ms] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${ms.toFixed(0).padStart(7)}  ${k}`);
