/**
 * Counts known before a restart (count-hints.ts, ADR 0029 decision 24): a big count's first call
 * after the start answers with the count the store knew at its stop while the recount runs, and
 * the recount replaces it; the hints file is only a hint (missing, corrupt or foreign: ignored).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepCountHints, readCountHints, writeCountHints } from './count-hints';
import { SqliteReadStore } from './sqlite';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-count-hints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store whose recounts (the counting thread) wait until the test lets them through. */
class HeldRecounts extends SqliteReadStore {
  held: Array<() => void> = [];
  protected override countOffThread(sql: string, params: unknown[]): Promise<number> {
    const counting = super.countOffThread(sql, params);
    return new Promise((resolve, reject) => this.held.push(() => counting.then(resolve, reject)));
  }
  release(): void {
    for (const go of this.held.splice(0)) go();
  }
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('counts known across a restart', () => {
  it('answer a big count’s first call while its recount runs; the recount replaces them', async () => {
    const file = join(dir, 'readmodels.sqlite');
    const hints = join(dir, 'count-hints.json');
    const rows = new Map(Array.from({ length: 600 }, (_, i) => [`t${i}`, { _id: `t${i}`, c: 'x', r: i % 3 === 0 ? 1 : 0 }]));
    const unmatched = { c: 'x', r: 0 };

    // Before the stop: the count is known (recounted and kept), and saved at the stop.
    const before = new SqliteReadStore(file, { offThreadRows: 100 });
    await before.commit(new Map([['t', rows]]), []);
    expect(await before.collection('t').count(unmatched)).toBe(400);
    const kept = keepCountHints(before, hints);
    kept.stop();
    await before.close();
    expect(readCountHints(hints)).toEqual([['t', expect.any(String), 400]]);

    // Meanwhile (a crash after the last save, say) ten more unmatched rows were written.
    const writer = new SqliteReadStore(file, { offThreadRows: Infinity });
    await writer.commit(new Map([['t', new Map(Array.from({ length: 10 }, (_, i) => [`n${i}`, { _id: `n${i}`, c: 'x', r: 0 }]))]]), []);
    await writer.close();

    // After the start: the first call answers the saved count without waiting for the recount.
    const after = new HeldRecounts(file, { offThreadRows: 100, staleCountWaitMs: 400 });
    keepCountHints(after, hints).stop();
    // Not even for staleCountWaitMs: how long its recount takes is not known yet.
    const first = after.collection('t').count(unmatched);
    expect(await Promise.race([first, settle(250).then(() => 'waited for the recount')])).toBe(400);
    expect(after.held.length).toBe(1);
    // Nor do the next calls while it runs.
    expect(await Promise.race([after.collection('t').count(unmatched), settle(250).then(() => 'waited again')])).toBe(400);
    expect(after.held.length).toBe(1);
    // The recount goes through and replaces it.
    after.release();
    let n = await after.collection('t').count(unmatched);
    for (let i = 0; i < 100 && n !== 410; i++) {
      await settle(50);
      n = await after.collection('t').count(unmatched);
    }
    expect(n).toBe(410);
    await after.close();

    // Without hints the same first call waits for its recount.
    const cold = new HeldRecounts(file, { offThreadRows: 100 });
    const waiting = cold.collection('t').count(unmatched);
    expect(await Promise.race([waiting, settle(300).then(() => 'still counting')])).toBe('still counting');
    cold.release();
    expect(await waiting).toBe(410);
    await cold.close();
  });

  it('ignores a hints file that is missing, corrupt or of another format, and writes one whole', () => {
    const file = join(dir, 'hints-a.json');
    expect(readCountHints(file)).toEqual([]);
    writeFileSync(file, '{"format":1,"counts":[["t","k",');
    expect(readCountHints(file)).toEqual([]);
    writeFileSync(file, JSON.stringify({ format: 2, counts: [['t', 'k', 1]] }));
    expect(readCountHints(file)).toEqual([]);
    writeFileSync(file, JSON.stringify({ format: 1, counts: [['t', 'k', 5], ['t', 'bad', -1], ['t', 'frac', 1.5], ['t', 7, 1], 'x'] }));
    expect(readCountHints(file)).toEqual([['t', 'k', 5]]);
    writeCountHints(file, [['u', 'k2', 9]]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ format: 1, counts: [['u', 'k2', 9]] });
  });
});
