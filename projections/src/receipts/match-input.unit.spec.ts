import { describe, expect, it } from 'vitest';
import { CONFIDENT_AT } from '@paperlink/domain';
import { receiptMatchInput, type ReceiptDoc } from './receipts';

const doc = (over: Partial<ReceiptDoc>): ReceiptDoc => ({
  _id: 'r1', companyId: 'c1', userId: 'u1', original_filename: 'r1.jpg', extracted_merchant: 'OEN TR4DING', extracted_date: '2024-05-03', extractedCents: 4250,
  field_confidence: {}, corrected: [], ...over,
} as unknown as ReceiptDoc);

describe('a read receipt as the matcher takes it', () => {
  it('marks the merchant doubtful when its read confidence is under the confident mark', () => {
    expect(receiptMatchInput(doc({ field_confidence: { merchant: CONFIDENT_AT - 0.2 } })).merchantDoubtful).toBe(true);
    expect(receiptMatchInput(doc({ field_confidence: { merchant: CONFIDENT_AT } })).merchantDoubtful).toBeUndefined();
  });

  it('takes a merchant a person corrected, or one read before confidences were kept, as sure', () => {
    expect(receiptMatchInput(doc({ field_confidence: { merchant: 0.3 }, corrected: ['merchant'] })).merchantDoubtful).toBeUndefined();
    expect(receiptMatchInput(doc({ field_confidence: {} })).merchantDoubtful).toBeUndefined();
    expect(receiptMatchInput(doc({ field_confidence: { merchant: 0.3 }, extracted_merchant: null })).merchantDoubtful).toBeUndefined();
  });

  it('marks the date doubtful the same way: under the mark, not corrected, read at all', () => {
    expect(receiptMatchInput(doc({ field_confidence: { date: CONFIDENT_AT - 0.3 } })).dateDoubtful).toBe(true);
    expect(receiptMatchInput(doc({ field_confidence: { date: CONFIDENT_AT - 0.3 } })).merchantDoubtful).toBeUndefined();
    expect(receiptMatchInput(doc({ field_confidence: { date: CONFIDENT_AT } })).dateDoubtful).toBeUndefined();
    expect(receiptMatchInput(doc({ field_confidence: { date: 0.3 }, corrected: ['date'] })).dateDoubtful).toBeUndefined();
    expect(receiptMatchInput(doc({ field_confidence: { date: 0.3 }, extracted_date: null })).dateDoubtful).toBeUndefined();
  });

  it('carries the fields the matcher reads', () => {
    expect(receiptMatchInput(doc({}))).toEqual({ id: 'r1', totalCents: 4250, date: '2024-05-03', merchant: 'OEN TR4DING', uploadedBy: 'u1' });
  });
});
