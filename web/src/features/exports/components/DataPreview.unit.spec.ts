import { describe, expect, it } from 'vitest';
import { previewCell, previewColumns } from './DataPreview';

describe('preview table', () => {
  it('shows the record fields in order, without ids, kinds, files and links, at most 8', () => {
    expect(previewColumns([{ type: 'transaction', id: 't1', date: '2024-01-01', description: 'Cafe', amountCents: -450, attachments: [] }, { id: 't2', owner: 'Ada', link: '/r' }])).toEqual(['date', 'description', 'amountCents', 'owner']);
    expect(previewColumns([Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, i]))])).toHaveLength(8);
  });
  it('shows cents as dollars, lists joined, booleans in words and nothing as a dash', () => {
    expect(previewCell('amountCents', -12345)).toBe('-$123.45');
    expect(previewCell('amount', -3.5)).toBe('-3.5');
    expect(previewCell('receipts', ['a.jpg', 'b.pdf'])).toBe('a.jpg, b.pdf');
    expect(previewCell('receipts', [])).toBe('—');
    expect(previewCell('matched', true)).toBe('Yes');
    expect(previewCell('merchant', null)).toBe('—');
  });
});
