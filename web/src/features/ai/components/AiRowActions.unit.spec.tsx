import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { AiRowActions } from './AiRowActions';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function show() {
  const router = createMemoryRouter([
    { path: '/transactions', element: <AiRowActions transaction={{ id: 't9', description: 'HAMPTON INN AUSTIN TX PENDING' }} /> },
    { path: '/ai-dashboard', element: <p>dashboard</p> },
  ], { initialEntries: ['/transactions'] });
  render(<QueryClientProvider client={new QueryClient()}><RouterProvider router={router} /><ToastContainer /></QueryClientProvider>);
  return router;
}

describe('AI row actions on /transactions', () => {
  it('warns with the number of similar transactions and links to the duplicate groups', async () => {
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { duplicateAnalysis: { isDuplicate: true, kind: 'transaction', confidence: 0.95, groupId: 'g1', duplicates: [{ id: 't8' }], similarTransactions: [{ id: 't8' }] } } });
    const router = show();
    fireEvent.click(screen.getByRole('button', { name: 'Check duplicates HAMPTON INN AUSTIN TX PENDING' }));
    await screen.findByText(/Duplicate detected: 1 similar transactions found/);
    expect(post).toHaveBeenCalledWith('/ai/duplicates/check/t9');
    fireEvent.click(screen.getByRole('link', { name: 'Review duplicates' }));
    expect(router.state.location.pathname + router.state.location.search).toBe('/ai-dashboard?tab=duplicates');
  });

  it("says 'No duplicates found', and 'Error checking duplicates' when the call fails", async () => {
    const post = vi.spyOn(api, 'post').mockResolvedValueOnce({ data: { duplicateAnalysis: { isDuplicate: false, duplicates: [], similarTransactions: [] } } });
    show();
    fireEvent.click(screen.getByRole('button', { name: 'Check duplicates HAMPTON INN AUSTIN TX PENDING' }));
    await screen.findByText('No duplicates found');
    post.mockRejectedValueOnce(new Error('boom'));
    fireEvent.click(await screen.findByRole('button', { name: 'Check duplicates HAMPTON INN AUSTIN TX PENDING' }));
    await screen.findByText('Error checking duplicates');
  });

  it('opens the AI Analysis modal and gives the focus back to the row action when it closes', async () => {
    vi.spyOn(api, 'post').mockResolvedValue({ data: { analysis: {} } });
    show();
    const opener = screen.getByRole('button', { name: 'AI analysis HAMPTON INN AUSTIN TX PENDING' });
    opener.focus();
    fireEvent.click(opener);
    const dialog = await screen.findByRole('dialog', { name: 'AI Analysis' });
    expect(dialog.textContent).toContain('HAMPTON INN AUSTIN TX PENDING');
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });
});
