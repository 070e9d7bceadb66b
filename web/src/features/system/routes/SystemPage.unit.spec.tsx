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

const failures = {
  queue: 'kafka',
  failures: [{ id: 'job-2', type: 'receipt.ocr', attempts: 3, error: 'Could not read the file', failedAt: '2026-11-23T10:05:00.000Z', causationId: 'event-2' }],
};
const answer = (byPath: Record<string, unknown>) => async (path: string) => {
  if (!(path in byPath)) throw new Error(`unexpected GET ${path}`);
  return { data: byPath[path] };
};

function renderPage() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(<QueryClientProvider client={client}><SystemPage /></QueryClientProvider>);
}

describe('SystemPage', () => {
  it('shows a running rebuild with its rate, progress and time left, and the projections', async () => {
    const get = vi.spyOn(api, 'get').mockImplementation(answer({ '/system/rebuilds': status, '/system/job-failures': failures }) as typeof api.get);
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
    vi.spyOn(api, 'get').mockImplementation(answer({ '/system/rebuilds': { ...status, rebuilds: [] }, '/system/job-failures': { queue: 'kafka', failures: [] } }) as typeof api.get);
    renderPage();
    expect(await screen.findByText('No projection has been rebuilt since the server started.')).toBeTruthy();
    expect(await screen.findByText('No job has failed.')).toBeTruthy();
  });

  it('lists the failed jobs with their attempts and error', async () => {
    const get = vi.spyOn(api, 'get').mockImplementation(answer({ '/system/rebuilds': status, '/system/job-failures': failures }) as typeof api.get);
    renderPage();
    const card = await screen.findByRole('region', { name: 'Failed jobs' });
    const row = (await within(card).findAllByRole('row'))[1]!;
    expect(row.textContent).toContain('Receipt reading (OCR)');
    expect(row.textContent).toContain('Could not read the file');
    expect(within(row).getAllByRole('cell')[2]!.textContent).toBe('3');
    expect(row.querySelector('time')?.getAttribute('dateTime')).toBe('2026-11-23T10:05:00.000Z');
    expect(get).toHaveBeenCalledWith('/system/job-failures');
  });

  it('says where failures show with the in-process queue', async () => {
    vi.spyOn(api, 'get').mockImplementation(answer({ '/system/rebuilds': status, '/system/job-failures': { queue: 'in-process', failures: [] } }) as typeof api.get);
    renderPage();
    expect(await screen.findByText('Jobs run in the server process; a failed receipt reading shows on its receipt.')).toBeTruthy();
  });
});
