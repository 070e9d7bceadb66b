import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../workers/pool';
import { offThread } from '../workers/off-thread';

describe('the analytics workbook', () => {
  const pool = new WorkerPool({ size: 1 });
  afterAll(() => pool.close());

  it('is built in a pool worker: header, the rows in order, numbers as numbers, text as text', async () => {
    const rows: Array<[string, string, string | number]> = [['period', 'startDate', '2024-01-01'], ['financial', 'totalExpenses', 123.45], ['categories', '=SUM(1+1)', 12.5]];
    const bytes = await offThread(pool).analyticsXlsx(rows);
    expect(bytes).toBeInstanceOf(Uint8Array);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
    const sheet = book.getWorksheet('Analytics')!;
    expect(sheet.getRow(1).values).toEqual([undefined, 'Section', 'Figure', 'Value']);
    expect(sheet.getRow(1).font?.bold).toBe(true);
    expect([2, 3, 4].map((n) => (sheet.getRow(n).values as unknown[]).slice(1))).toEqual(rows);
    expect(sheet.getRow(4).getCell(2).type).toBe(ExcelJS.ValueType.String);
  });
});
