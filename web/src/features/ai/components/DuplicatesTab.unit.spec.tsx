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
  { id: 'g1', confidence_score: 0.92, duplicate_count: 2, status: 'pending' },
  { id: 'g2', confidence_score: 0.7, duplicate_count: 2, status: 'confirmed' },
  { id: 'g3', confidence_score: 0.5, duplicate_count: 3, status: 'dismissed' },
];

function show() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(<QueryClientProvider client={client}><DuplicatesTab /><ToastContainer /></QueryClientProvider>);
}

describe('Duplicate Detection tab', () => {
  it('badges each group by confidence and offers Confirm / Dismiss only on pending groups', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: groups });
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
});
