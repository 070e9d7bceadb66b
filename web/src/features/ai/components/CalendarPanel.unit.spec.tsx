import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { api } from '../../../lib/api-client';
import { CalendarPanel } from './CalendarPanel';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const empty = { calendars: [], trips: [], totals: { events: 0, trips: 0, correlatedTransactions: 0, correlatedSpend: 0 } };
const withTrip = {
  calendars: [{ id: 'cal1', fileName: 'trips.ics', name: null, events: 1, uploaded_at: '2025-08-01T00:00:00Z', user_id: 'u1' }],
  trips: [{ eventId: 'e1', userId: 'u1', summary: 'Denver site visit', location: 'Denver, CO', startDate: '2025-08-07', endDate: '2025-08-11', days: 5, transactionCount: 3, totalSpent: -612.4, byCategory: [{ category: 'LODGING', amount: -410.85 }, { category: 'MEALS', amount: -201.55 }], transactions: [] }],
  totals: { events: 1, trips: 1, correlatedTransactions: 3, correlatedSpend: -612.4 },
};

describe('Calendar insights', () => {
  it('uploads an iCalendar file in the calendar field and shows each trip with its spending', async () => {
    const get = vi.spyOn(api, 'get').mockResolvedValueOnce({ data: empty }).mockResolvedValue({ data: withTrip });
    const post = vi.spyOn(api, 'post').mockResolvedValue({ data: { calendar: { id: 'cal1', fileName: 'trips.ics', name: null, events: 1, recurringOccurrences: 0, skipped: 0, truncated: 0, replaced: false }, message: '1 calendar events imported' } });
    render(<QueryClientProvider client={new QueryClient()}><CalendarPanel /><ToastContainer /></QueryClientProvider>);
    await screen.findByText(/No calendar uploaded yet/);
    const file = new File(['BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n'], 'trips.ics', { type: 'text/calendar' });
    fireEvent.change(screen.getByTestId('calendar-input'), { target: { files: [file] } });
    fireEvent.click(screen.getByRole('button', { name: 'Upload calendar' }));
    await screen.findByText('1 calendar events imported');
    const form = post.mock.calls[0]![1] as FormData;
    expect(post.mock.calls[0]![0]).toBe('/ai/calendar/upload');
    expect((form.get('calendar') as File).name).toBe('trips.ics');
    const trips = await screen.findByRole('table', { name: 'Trips' });
    const row = within(trips).getAllByRole('row')[1]!;
    expect(row.textContent).toContain('Denver site visit');
    expect(row.textContent).toContain('2025-08-07 to 2025-08-11');
    expect(row.textContent).toContain('$612.40');
    expect(row.textContent).toContain('LODGING $410.85');
    expect(get).toHaveBeenCalledTimes(2);
  });

  it('shows the server refusal when the AI features are off', async () => {
    const { AxiosError, AxiosHeaders } = await import('axios');
    const headers = new AxiosHeaders();
    vi.spyOn(api, 'get').mockRejectedValue(new AxiosError('x', '409', { headers } as never, null, { status: 409, statusText: 'x', headers, config: { headers } as never, data: { error: "The AI features are switched off in this company's settings." } }));
    render(<QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}><CalendarPanel /></QueryClientProvider>);
    expect((await screen.findByRole('alert')).textContent).toContain('switched off');
  });
});
