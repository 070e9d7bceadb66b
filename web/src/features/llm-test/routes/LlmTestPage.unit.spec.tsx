import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { useSession } from '../../../lib/session';
import { aiConfidence } from '../api/llm';
import { LlmTestPage } from './LlmTestPage';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function show() {
  useSession.setState({ companies: [{ id: 'c1', name: 'Co', role: 'user' }], currentCompanyId: 'c1' });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(<QueryClientProvider client={client}><LlmTestPage /></QueryClientProvider>);
}

describe('/llm-test', () => {
  it('shows health, then a categorisation with its badge and every model tried', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { status: 'degraded', connected: false, keyConfigured: true, chain: ['m1', 'm2', 'offline-learned'], error: 'http 529 (overloaded)', aiEnabled: true } });
    const post = vi.spyOn(api, 'post').mockResolvedValue({
      data: { predictedCategory: 'Meals', predictedCategoryId: 'k1', confidence: 0.55, model: 'offline-learned', source: 'offline', attempts: [{ model: 'm1', outcome: 'failed', reason: 'timeout' }, { model: 'offline-learned', outcome: 'answered' }], categoriesConsidered: 4 },
    });
    show();
    fireEvent.click(screen.getByRole('button', { name: 'Check Health' }));
    expect((await screen.findByText('degraded')).getAttribute('data-result')).toBe('status');
    expect(screen.getByText('Not connected (http 529 (overloaded))')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Categorize' }));
    expect(await screen.findByText('Enter a description')).toBeTruthy();
    expect(post).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('Description'), { target: { value: 'CHIPOTLE 9128' } });
    fireEvent.change(screen.getByLabelText('Amount'), { target: { value: '-14.20' } });
    fireEvent.click(screen.getByRole('button', { name: 'Categorize' }));
    const result = await screen.findByLabelText('Categorization result');
    expect(post).toHaveBeenCalledWith('/ai/llm/test-categorization', { description: 'CHIPOTLE 9128', amount: -14.2, companyId: 'c1' });
    expect(within(result).getByText('Meals')).toBeTruthy();
    expect(within(result).getByText('Medium 55%').className).toContain('warning');
    expect(within(result).getByText('m1: failed (timeout)')).toBeTruthy();
  });

  it('sends the file for OCR in the receipt field and shows the text and receiptData', async () => {
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { ocrText: 'CAFE\nTOTAL 4.50', receiptData: { filename: 'a.png', fileSize: 2048, fileType: 'image/png' } } });
    show();
    expect(screen.getByRole('button', { name: 'Run OCR' })).toHaveProperty('disabled', true);
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'a.png', { type: 'image/png' });
    fireEvent.change(screen.getByLabelText('Receipt file (JPG, PNG or PDF)'), { target: { files: [file] } });
    fireEvent.click(screen.getByRole('button', { name: 'Run OCR' }));
    const result = await screen.findByLabelText('OCR result');
    const form = post.mock.calls[0]![1] as FormData;
    expect(post.mock.calls[0]![0]).toBe('/ai/llm/test-ocr');
    expect((form.get('receipt') as File).name).toBe('a.png');
    expect(within(result).getByText('2.0 KB')).toBeTruthy();
    expect(within(result).getByText(/TOTAL 4\.50/).getAttribute('data-result')).toBe('ocr-text');
  });

  it('badges confidence as section 9 says: above 0.7 high, above 0.4 medium, else low', () => {
    expect([0.71, 0.7, 0.41, 0.4, 0].map((c) => aiConfidence(c).label)).toEqual(['High', 'Medium', 'Medium', 'Low', 'Low']);
  });
});
