import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@paperlink/domain';
import { autoMatchJobsFrom } from './matching-job';

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
