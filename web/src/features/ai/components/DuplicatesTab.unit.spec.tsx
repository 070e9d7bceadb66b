import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { DuplicatesTab } from './DuplicatesTab';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const groups = [
  { id: 'g1', kind: 'transaction', confidence_score: 0.92, duplicate_count: 2, status: 'pending', memberIds: ['t1', 't2'], reasons: ['same amount', 'pending form of the same descriptor'] },
  { id: 'g2', confidence_score: 0.7, duplicate_count: 2, status: 'confirmed' },
  { id: 'g3', confidence_score: 0.5, duplicate_count: 3, status: 'dismissed' },
];

function show() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(<QueryClientProvider client={client}><DuplicatesTab /><ToastContainer /></QueryClientProvider>);
}

describe('Duplicate Detection tab', () => {
  it('badges each group by confidence and offers Confirm / Dismiss only on pending groups', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { groups } });
    const put = vi.spyOn(api, 'put').mockResolvedValue({ data: {} });
    show();
    await screen.findByTestId('group-g1');
    const tones = ['g1', 'g2', 'g3'].map((id) => within(screen.getByTestId(`group-${id}`)).getByText(/%$/).getAttribute('data-tone'));
    expect(tones).toEqual(['danger', 'warning', 'info']);
    expect(within(screen.getByTestId('group-g2')).queryByRole('button')).toBeNull();
    expect(within(screen.getByTestId('group-g3')).queryByRole('button')).toBeNull();
    fireEvent.click(within(screen.getByTestId('group-g1')).getByRole('button', { name: 'Confirm' }));
    await screen.findByText('Duplicate group confirmed');
    expect(put).toHaveBeenCalledWith('/ai/duplicates/groups/g1', { status: 'confirmed' });
  });

  it('says so when an update fails', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { groups } });
    vi.spyOn(api, 'put').mockRejectedValue(new Error('boom'));
    show();
    fireEvent.click(within(await screen.findByTestId('group-g1')).getByRole('button', { name: 'Dismiss' }));
    await screen.findByText('Error updating duplicate group');
  });

  it('reads the records of a group when they are opened', async () => {
    const get = vi.spyOn(api, 'get').mockImplementation(((url: string) => {
      if (url === '/ai/duplicates/groups') return Promise.resolve({ data: { groups } });
      const id = url.split('/').pop();
      return Promise.resolve({ data: { transaction: { id, transaction_date: '2025-08-0' + (id === 't1' ? 8 : 9), description: id === 't1' ? 'HAMPTON INN AUSTIN TX' : 'HAMPTON INN AUSTIN TX PENDING', amount: -410.85 } } });
    }) as never);
    show();
    const row = await screen.findByTestId('group-g1');
    expect(row.textContent).toContain('pending form of the same descriptor');
    expect(get).toHaveBeenCalledTimes(1);
    const details = row.querySelector('details')!;
    details.open = true;
    fireEvent(details, new Event('toggle'));
    await within(row).findByText(/HAMPTON INN AUSTIN TX PENDING/);
    expect(get.mock.calls.map((c) => c[0])).toEqual(['/ai/duplicates/groups', '/transactions/t1', '/transactions/t2']);
  });

  it('runs a batch of 100 and shows what it processed and found', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { groups: [] } });
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { results: { processed: 100, duplicatesFound: 2, newGroups: 1, groups: [] } } });
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Run duplicate detection' }));
    await screen.findByTestId('batch-result');
    expect(post).toHaveBeenCalledWith('/ai/duplicates/batch', { limit: 100, kind: 'transaction' });
    expect(screen.getByTestId('batch-processed').textContent).toBe('100');
    expect(screen.getByTestId('batch-found').textContent).toBe('2');
    expect(screen.getByTestId('batch-result').textContent).toContain('(1 new)');
  });

  it('says so when a batch fails', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { groups: [] } });
    vi.spyOn(api, 'post').mockRejectedValue(new Error('boom'));
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Run duplicate detection' }));
    await screen.findByText('Error in batch processing');
  });
});
