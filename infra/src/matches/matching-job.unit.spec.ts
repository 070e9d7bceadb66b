import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@paperlink/domain';
import { AUTO_MATCH_JOB_OPTIONS, autoMatchJobsFrom } from './matching-job';

const recorded = (type: string, data: Record<string, unknown>, position: number): RecordedEvent =>
  ({ id: `e${position}`, type, data, metadata: { occurredAt: '2026-11-24T00:00:00.000Z', correlationId: 'r1' }, streamId: 's', revision: 0, position }) as unknown as RecordedEvent;

describe('auto-match jobs of an import (ADR 0027)', () => {
  it('one run over the posting days of the whole statement, from its StatementImported; none per chunk of lines', () => {
    const chunks = [1, 2, 3].map((i) => recorded('TransactionsImported', { companyId: 'c', importId: 'i', rows: [{ transactionId: `t${i}`, date: `2026-0${i}-01` }] }, i));
    expect(chunks.flatMap(autoMatchJobsFrom)).toEqual([]);
    const jobs = autoMatchJobsFrom(recorded('StatementImported', { companyId: 'c', importId: 'i', imported: 3, days: ['2026-01-01', '2026-03-01'] }, 4));
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ companyId: 'c', payload: { position: 4, seed: { days: ['2026-01-01', '2026-03-01'] } } });
  });

  it('a statement imported before its event named its days starts no run when read again', () => {
    expect(autoMatchJobsFrom(recorded('StatementImported', { companyId: 'c', importId: 'i', imported: 3 }, 9))).toEqual([]);
  });
});

describe('auto-match job retries (ADR 0008, the list\'s own wait)', () => {
  it('a job whose read models are behind keeps trying for minutes, as long as a 200,000-row import takes to project', () => {
    // The queues' back-off (memory and Kafka): min(max, base * 2^(attempt - 1)) between attempts.
    const { maxAttempts, backoffMs } = AUTO_MATCH_JOB_OPTIONS;
    let waited = 0;
    for (let attempt = 1; attempt < maxAttempts; attempt++) waited += Math.min(backoffMs.max, backoffMs.base * 2 ** (attempt - 1));
    // Each attempt also waits up to READ_SIDE_WAIT_MS (5 s) for the read models; not counted here.
    // bench/responsiveness.ts: 200,000 lines were listed 75 s after the import was answered.
    expect(waited).toBeGreaterThanOrEqual(180_000);
    expect(AUTO_MATCH_JOB_OPTIONS.concurrency).toBe(1);
  });
});
