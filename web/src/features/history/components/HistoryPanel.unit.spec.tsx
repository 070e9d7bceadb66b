import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { createQueryClient } from '../../../lib/query-client';
import { useSession } from '../../../lib/session';
import { HistoryButton } from './HistoryPanel';

const entry = (n: number, summary: string) => ({ position: n, eventId: `e${n}`, type: 'TransactionEdited', at: '2026-11-20T10:00:00Z', who: { userId: 'u1', name: 'Ana Lopez', role: 'admin' }, system: null, summary, changes: [{ field: 'description', before: 'Shop', after: 'Shop 2' }], source: null, requestId: null });

beforeEach(() => useSession.setState({ initialized: true, loading: false, user: { id: 'u1', email: 'a@x.com', firstName: 'A', lastName: 'B' }, companies: [{ id: 'c1', name: 'Acme', role: 'admin' }], currentCompanyId: 'c1' }));
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const show = () => render(<QueryClientProvider client={createQueryClient()}><HistoryButton kind="transaction" id="t1" label="Shop" /></QueryClientProvider>);

describe('History panel', () => {
  it('shows the timeline, and reads it afresh each time it opens', async () => {
    const get = vi.spyOn(api, 'get')
      .mockResolvedValueOnce({ data: { kind: 'transaction', id: 't1', entries: [entry(1, 'Edited')], current: null } })
      .mockResolvedValueOnce({ data: { kind: 'transaction', id: 't1', entries: [entry(1, 'Edited'), entry(2, 'Edited again')], current: null } });
    show();
    fireEvent.click(screen.getByRole('button', { name: 'History of Shop' }));
    expect(await screen.findAllByTestId('history-entry')).toHaveLength(1);
    expect(get).toHaveBeenCalledWith('/history/transaction/t1');
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByTestId('history-panel')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'History of Shop' }));
    await waitFor(() => expect(screen.getAllByTestId('history-entry')).toHaveLength(2));
  });

  it('says so when the history cannot be loaded', async () => {
    vi.spyOn(api, 'get').mockRejectedValue(new Error('down'));
    show();
    fireEvent.click(screen.getByRole('button', { name: 'History of Shop' }));
    await screen.findByText('The history could not be loaded.');
  });
});
