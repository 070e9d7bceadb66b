/**
 * A preload for the server under a benchmark (bench/responsiveness.ts, BENCH_STALL_LOG=<file>):
 * every turn of the request thread's event loop that was held over 30 ms, and every GC pause,
 * written as JSON lines with monotonic microsecond times (the clock of `--cpu-prof`'s samples),
 * so each stall can be attributed from the profile (bench/stall-attribute.ts). Main thread only.
 */
import { appendFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_STALL_LOG;
if (file && isMainThread) {
  const lines = [];
  const flush = () => {
    if (lines.length) appendFileSync(file, lines.splice(0).join('\n') + '\n');
  };
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  const TICK_MS = 5;
  let last = nowUs();
  setInterval(() => {
    const now = nowUs();
    const gapMs = (now - last) / 1000 - TICK_MS;
    if (gapMs > 30) lines.push(JSON.stringify({ kind: 'stall', startUs: last, endUs: now, ms: Math.round(gapMs) }));
    last = now;
  }, TICK_MS).unref();
  // performance entries are on performance.timeOrigin's clock: hrtime at startTime 0 is origin.
  const originUs = nowUs() - performance.now() * 1000;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration >= 5) lines.push(JSON.stringify({ kind: 'gc', startUs: Math.round(originUs + e.startTime * 1000), ms: Math.round(e.duration), type: e.detail?.kind }));
    }
  }).observe({ entryTypes: ['gc'] });
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
}
