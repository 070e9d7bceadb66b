import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useReadSide } from '../lib/read-side';

const asked = vi.hoisted(() => ({ calls: 0, currentAfter: 2 }));
vi.mock('../lib/api-client', () => ({
  api: {
    get: vi.fn(async () => {
      asked.calls++;
      // What the API client does with the answer's X-Read-Side for this tab's position.
      useReadSide.getState().noteAnswer(null, asked.calls >= asked.currentAfter ? 'current' : 'behind', useReadSide.getState().position);
      return { data: {} };
    }),
  },
}));

const { ReadSideNotice } = await import('./ReadSideNotice');

afterEach(() => {
  cleanup();
  useReadSide.getState().reset();
  asked.calls = 0;
});

function renderNotice(client = new QueryClient()) {
  return render(
    <QueryClientProvider client={client}>
      <ReadSideNotice pollMs={5} />
    </QueryClientProvider>,
  );
}

describe('the notice while this tab\'s writes are not listed yet', () => {
  it('says nothing (an empty live region) while the lists hold every write, and asks nothing', async () => {
    renderNotice();
    expect(screen.getByRole('status').textContent).toBe('');
    await new Promise((r) => setTimeout(r, 30));
    expect(asked.calls).toBe(0);
  });

  it('says the lists are filling in, asks again until current, then reloads the page\'s data and goes quiet', async () => {
    const client = new QueryClient();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    useReadSide.getState().noteAnswer(77, 'behind', null);
    renderNotice(client);
    expect(screen.getByRole('status').textContent).toContain('still being listed');
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe(''));
    expect(asked.calls).toBe(2);
    expect(invalidate).toHaveBeenCalledTimes(1);
    await new Promise((r) => setTimeout(r, 30));
    expect(asked.calls).toBe(2);
  });
});
