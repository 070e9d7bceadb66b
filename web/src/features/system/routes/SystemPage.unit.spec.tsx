import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { SystemPage } from './SystemPage';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const status = {
  head: 12000,
  position: 12000,
  projections: [{ name: 'transactions', version: 5, generation: 0, position: 12000 }],
  rebuilds: [{ projection: 'transactions', version: 5, generation: 1, state: 'building', processed: 6000, position: 6000, head: 12000, eventsPerSecond: 3000, secondsLeft: 2, startedAt: '2026-11-23T10:00:00.000Z', finishedAt: null }],
};

function renderPage() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(<QueryClientProvider client={client}><SystemPage /></QueryClientProvider>);
}

describe('SystemPage', () => {
  it('shows a running rebuild with its rate, progress and time left, and the projections', async () => {
    const get = vi.spyOn(api, 'get').mockResolvedValue({ data: status });
    renderPage();
    const rebuilds = await screen.findByRole('region', { name: 'Rebuilds' });
    const row = within(rebuilds).getAllByRole('row')[1]!;
    expect(row.textContent).toContain('building');
    expect(row.textContent).toContain('3000');
    expect(row.textContent).toContain('2 s');
    expect(within(rebuilds).getByRole('progressbar', { name: 'transactions progress' }).getAttribute('value')).toBe('6000');
    expect(within(screen.getByRole('region', { name: 'Projections' })).getAllByRole('row')).toHaveLength(2);
    expect(get).toHaveBeenCalledWith('/system/rebuilds');
  });

  it('says when nothing was rebuilt', async () => {
    vi.spyOn(api, 'get').mockResolvedValue({ data: { ...status, rebuilds: [] } });
    renderPage();
    expect(await screen.findByText('No projection has been rebuilt since the server started.')).toBeTruthy();
  });
});
