import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { AxiosError, AxiosHeaders } from 'axios';
import { api } from '../../../lib/api-client';
import { AiAnalysisModal } from './AiAnalysisModal';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const categories = [{ id: 'c-fuel', name: 'FUEL' }, { id: 'c-meals', name: 'MEALS' }, { id: 'c-lodging', name: 'LODGING' }];

function serve(analysis: unknown, recorded?: unknown) {
  const post = vi.spyOn(api, 'post').mockImplementation(((url: string) => {
    if (url === '/ai/analyze/comprehensive/t1') return Promise.resolve({ data: { analysis } });
    if (url === '/ai/categorize/transaction/t1' && recorded) return Promise.resolve({ data: recorded });
    if (url === '/ai/categorize/feedback') return Promise.resolve({ data: { recorded: true } });
    return Promise.reject(new Error(url));
  }) as never);
  vi.spyOn(api, 'get').mockImplementation(((url: string) => (url === '/masterdata/categories' ? Promise.resolve({ data: categories }) : Promise.reject(new Error(url)))) as never);
  return post;
}

function show(onClose = () => {}) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <button type="button">opener</button>
      <AiAnalysisModal transaction={{ id: 't1', description: 'SHELL OIL 1050' }} onClose={onClose} />
      <ToastContainer />
    </QueryClientProvider>,
  );
}

const section = (name: string) => screen.getByRole('region', { name });

describe('AI Analysis modal', () => {
  it('shows each section on its own: results where they worked, an error with details where they failed', async () => {
    serve({
      categorization: { predictedCategory: 'FUEL', predictedCategoryId: 'c-fuel', confidence: 0.93 },
      duplicateAnalysis: { error: 'Duplicate index unavailable', details: { code: 'DUP_INDEX' } },
      recurringAnalysis: { hasPattern: true, patternDescription: 'SHELL OIL fuel stop', frequency: 'weekly' },
      // calendarAnalysis left out: shown as failed, never as an empty success
    });
    show();
    const dialog = await screen.findByRole('dialog', { name: 'AI Analysis' });
    await within(dialog).findByText('FUEL');

    const cat = section('Intelligent Categorization');
    expect(within(cat).queryByRole('alert')).toBeNull();
    expect(within(cat).getByTestId('ai-confidence').textContent).toBe('High (93%)');
    expect(within(cat).getByTestId('ai-confidence').className).toContain('success');

    const dup = section('Duplicate Detection');
    expect(within(dup).getByRole('alert').textContent).toContain('Duplicate index unavailable');
    expect(within(dup).getByText('Details')).toBeTruthy();
    expect(within(dup).getByRole('alert').textContent).toContain('DUP_INDEX');
    expect(within(dup).queryByText('No duplicates found')).toBeNull();

    const rec = section('Recurring Patterns');
    expect(within(rec).queryByRole('alert')).toBeNull();
    expect(rec.textContent).toContain('SHELL OIL fuel stop');
    expect(rec.textContent).toContain('weekly');

    const cal = section('Calendar Correlation');
    expect(within(cal).getByRole('alert').textContent).toContain('No result was returned for this analysis');
  });

  it('takes an error object as well as a string, and shows a medium badge between 0.4 and 0.7', async () => {
    serve({
      categorization: { predictedCategory: 'MEALS', predictedCategoryId: 'c-meals', confidence: 0.55 },
      duplicateAnalysis: { isDuplicate: false, similarTransactions: [] },
      recurringAnalysis: { error: { message: 'Not enough history' } },
      calendarAnalysis: { hasCorrelation: true, correlationDescription: 'During "Denver site visit" (Denver)' },
    });
    show();
    await screen.findByText('MEALS');
    expect(screen.getByTestId('ai-confidence').textContent).toBe('Medium (55%)');
    expect(within(section('Duplicate Detection')).getByText('No duplicates found')).toBeTruthy();
    expect(within(section('Recurring Patterns')).getByRole('alert').textContent).toContain('Not enough history');
    expect(section('Calendar Correlation').textContent).toContain('Denver site visit');
  });

  it('shows the recorded prediction (the one feedback grades) when that call works, the others from the comprehensive analysis', async () => {
    const post = serve(
      { categorization: { predictedCategory: 'MEALS', predictedCategoryId: 'c-meals', confidence: 0.5 }, duplicateAnalysis: { isDuplicate: false }, recurringAnalysis: { hasPattern: false }, calendarAnalysis: { hasCorrelation: false } },
      { predictedCategory: 'LODGING', predictedCategoryId: 'c-lodging', confidence: 0.88, details: { source: 'memory' } },
    );
    show();
    await screen.findByText('LODGING');
    expect(screen.getByTestId('ai-confidence').textContent).toBe('High (88%)');
    expect(section('Intelligent Categorization').textContent).toContain("from this payee's history");
    expect(screen.queryByText('MEALS')).toBeNull();
    expect(post.mock.calls.map((c) => c[0]).sort()).toEqual(['/ai/analyze/comprehensive/t1', '/ai/categorize/transaction/t1']);
  });

  it('records Yes feedback with the predicted category as the actual one', async () => {
    const post = serve({ categorization: { predictedCategory: 'FUEL', predictedCategoryId: 'c-fuel', confidence: 0.35 } });
    show();
    await screen.findByText('FUEL');
    expect(screen.getByTestId('ai-confidence').textContent).toBe('Low (35%)');
    fireEvent.click(screen.getByRole('button', { name: 'Yes' }));
    await screen.findByText('Categorization feedback recorded');
    expect(post).toHaveBeenCalledWith('/ai/categorize/feedback', { transactionId: 't1', actualCategoryId: 'c-fuel', predictedCategoryId: 'c-fuel', confidence: 0.35 });
    expect(screen.queryByRole('button', { name: 'Yes' })).toBeNull();
  });

  it('No lets the person pick the right category from master data', async () => {
    const post = serve({ categorization: { predictedCategory: 'FUEL', predictedCategoryId: 'c-fuel', confidence: 0.8 } });
    show();
    await screen.findByText('FUEL');
    fireEvent.click(screen.getByRole('button', { name: 'No' }));
    const select = await screen.findByLabelText('Correct category');
    await waitFor(() => expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select category', 'MEALS', 'LODGING']));
    fireEvent.change(select, { target: { value: 'c-lodging' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send correction' }));
    await screen.findByText('Categorization feedback recorded');
    expect(post).toHaveBeenCalledWith('/ai/categorize/feedback', { transactionId: 't1', actualCategoryId: 'c-lodging', predictedCategoryId: 'c-fuel', confidence: 0.8 });
  });

  it('says when the whole analysis failed, with the server text', async () => {
    const headers = new AxiosHeaders();
    vi.spyOn(api, 'post').mockRejectedValue(new AxiosError('Request failed', '500', { headers } as never, null, { status: 500, statusText: 'x', headers, config: { headers } as never, data: { error: 'Transaction not found' } }));
    show();
    await screen.findByText('Error performing AI analysis: Transaction not found', { selector: '.Toastify *' });
    expect(screen.getByRole('dialog').querySelector('[role=alert]')?.textContent).toContain('Transaction not found');
  });

  it('is an accessible dialog: labelled, focus kept inside, Escape closes', async () => {
    serve({ categorization: { predictedCategory: 'FUEL', predictedCategoryId: 'c-fuel', confidence: 0.9 } });
    const onClose = vi.fn();
    show(onClose);
    const dialog = await screen.findByRole('dialog', { name: 'AI Analysis' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(document.activeElement).toBe(dialog);
    await screen.findByText('FUEL');
    const buttons = within(dialog).getAllByRole('button');
    const last = buttons[buttons.length - 1]!;
    last.focus();
    fireEvent.keyDown(last, { key: 'Tab' });
    expect(document.activeElement).toBe(buttons[0]);
    fireEvent.keyDown(buttons[0]!, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
