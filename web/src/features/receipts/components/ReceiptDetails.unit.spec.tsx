import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import type { Receipt } from '../api/receipts';
import { ReceiptDetails } from './ReceiptDetails';
import { readFields } from './ReadFields';

const base: Receipt = {
  id: 'r1', original_filename: 'cafe.jpg', upload_date: '2026-11-23T10:00:00Z', extracted_date: '2026-11-20', extracted_amount: 12.5,
  extracted_merchant: 'Corner Cafe', extracted_description: 'Coffee', file_size: 2000, content_type: 'image/jpeg', processing_status: 'completed',
  match_count: 0, created_by_first_name: 'A', created_by_last_name: 'B',
  // The date is sure, the total and the merchant are not (the merchant least).
  field_confidence: { date: 0.99, totalCents: 0.8, merchant: 0.4, description: 0.5 },
  field_boxes: { date: [0.1, 0.2, 0.6, 0.25], totalCents: [0.5, 0.7, 0.9, 0.75], merchant: [0.1, 0.02, 0.9, 0.08] },
  corrected_fields: [],
};

beforeEach(() => {
  URL.createObjectURL = vi.fn(() => 'blob:receipt');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** Each render has its own query cache. */
const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={createQueryClient()}>{children}</QueryClientProvider>;

function serve(receipt: Receipt) {
  return vi.spyOn(api, 'get').mockImplementation(((url: string) => Promise.resolve(url.endsWith('/view') ? { data: new Blob(['x']) } : { data: { receipt } })) as never);
}

describe('readFields', () => {
  it('puts doubtful fields first, least sure first, and never flags a corrected or the description', () => {
    expect(readFields(base).map((f) => [f.key, f.doubtful])).toEqual([['merchant', true], ['amount', true], ['date', false], ['description', false]]);
    const fixed = readFields({ ...base, corrected_fields: ['merchant'] });
    expect(fixed.map((f) => [f.key, f.doubtful])).toEqual([['amount', true], ['date', false], ['merchant', false], ['description', false]]);
    expect(fixed.find((f) => f.key === 'merchant')!.box).toBeNull();
    // A field not read at all is doubtful whatever its confidence says.
    expect(readFields({ ...base, extracted_date: null })[0]!.key).toBe('date');
    // Nothing is flagged before the receipt has been read.
    expect(readFields({ ...base, processing_status: 'processing' }).some((f) => f.doubtful)).toBe(false);
  });
});

describe('ReceiptDetails', () => {
  it('shows the image with the boxes read, the doubtful fields first and flagged, and saves an edit made in place', async () => {
    serve(base);
    const put = vi.spyOn(api, 'put').mockResolvedValue({ data: { receipt: { ...base, extracted_merchant: 'Corner Café', corrected_fields: ['merchant'] } } } as never);
    render(<><ReceiptDetails id="r1" onClose={() => undefined} onChanged={() => undefined} /><ToastContainer /></>, { wrapper });
    await screen.findByAltText('Receipt cafe.jpg');
    const form = screen.getByRole('form', { name: 'Correct the fields read' });
    const labels = within(form).getAllByTestId(/^field-/).map((el) => el.dataset.testid);
    expect(labels).toEqual(['field-merchant', 'field-amount', 'field-date', 'field-description']);
    expect(within(screen.getByTestId('field-merchant')).getByText('Check')).toBeTruthy();
    expect(within(screen.getByTestId('field-date')).queryByText('Check')).toBeNull();
    // Boxes sit where the server says, as percentages of the image; doubtful ones look different.
    const merchantBox = screen.getByTestId('box-merchant');
    expect(merchantBox.style.left).toBe('10%');
    expect(merchantBox.style.top).toBe('2%');
    expect(merchantBox.style.width).toBe('80%');
    expect(merchantBox.className).toContain('doubtful');
    expect(screen.getByTestId('box-date').className).not.toContain('doubtful');
    expect(screen.queryByTestId('box-description')).toBeNull();
    // Focusing a field picks its box out on the image.
    const merchantInput = within(screen.getByTestId('field-merchant')).getByRole('textbox');
    fireEvent.focus(merchantInput);
    expect(screen.getByTestId('box-merchant').className).toContain('active');
    expect(screen.getByTestId('box-amount').className).not.toContain('active');
    fireEvent.change(merchantInput, { target: { value: 'Corner Café' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save corrections' }));
    await screen.findByText('Receipt updated successfully');
    expect(put).toHaveBeenCalledWith('/receipts/r1', { extracted_date: '2026-11-20', extracted_amount: 12.5, extracted_merchant: 'Corner Café', extracted_description: 'Coffee' });
    // Once corrected, the merchant is no longer flagged and its box is gone.
    expect(within(screen.getByTestId('field-merchant')).queryByText('Check')).toBeNull();
    expect(within(screen.getByTestId('field-merchant')).getByText('Corrected')).toBeTruthy();
    expect(screen.queryByTestId('box-merchant')).toBeNull();
  });

  it('shows the image without boxes for a receipt read from a text layer', async () => {
    serve({ ...base, field_boxes: {}, field_confidence: { date: 0.99, totalCents: 0.99, merchant: 0.99 } });
    render(<ReceiptDetails id="r1" onClose={() => undefined} onChanged={() => undefined} />, { wrapper });
    await screen.findByAltText('Receipt cafe.jpg');
    expect(screen.queryAllByTestId(/^box-/)).toHaveLength(0);
    expect(screen.queryByText('Check')).toBeNull();
  });

  it('saves against the revision it loaded; on 412 it keeps the input, says so and reloads on request', async () => {
    let current: Receipt = { ...base, revision: 2 };
    vi.spyOn(api, 'get').mockImplementation(((url: string) => Promise.resolve(url.endsWith('/view') ? { data: new Blob(['x']) } : { data: { receipt: current } })) as never);
    const stale = 'This receipt was changed by someone else. Reload to see the changes.';
    const put = vi.spyOn(api, 'put').mockRejectedValueOnce(Object.assign(new Error('x'), { isAxiosError: true, response: { status: 412, data: { error: stale, code: 'precondition_failed' } } }));
    render(<><ReceiptDetails id="r1" onClose={() => undefined} onChanged={() => undefined} /><ToastContainer /></>, { wrapper });
    const merchant = () => within(screen.getByTestId('field-merchant')).getByRole('textbox') as HTMLInputElement;
    await screen.findByAltText('Receipt cafe.jpg');
    fireEvent.change(merchant(), { target: { value: 'Mine' } });
    // Meanwhile someone else corrects the merchant.
    current = { ...base, extracted_merchant: 'Theirs', revision: 3 };
    fireEvent.click(screen.getByRole('button', { name: 'Save corrections' }));
    expect((await screen.findAllByText(new RegExp(stale))).length).toBeGreaterThanOrEqual(1);
    expect(put).toHaveBeenCalledWith('/receipts/r1', expect.objectContaining({ extracted_merchant: 'Mine' }), { headers: { 'If-Match': '"2"' } });
    expect(merchant().value).toBe('Mine');
    fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
    await waitFor(() => expect(merchant().value).toBe('Theirs'));
    expect(screen.queryByRole('button', { name: 'Reload' })).toBeNull();
  });
});
