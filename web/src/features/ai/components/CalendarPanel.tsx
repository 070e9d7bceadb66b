import { useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { formatUsd } from '../../../lib/format';
import { Spinner } from '../../../components/Spinner';
import { aiApi } from '../api/ai';
import { aiKeys } from '../api/queries';
import { useCanWrite } from '../../../lib/roles';

/** Calendar correlation (ADR 0011): upload an iCalendar file, then the spending of each trip. */
export function CalendarPanel() {
  const client = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  // Uploading a calendar is a write; an auditor reads the insights only.
  const canWrite = useCanWrite();
  const insights = useQuery({ queryKey: [...aiKeys.all(), 'calendar-insights'], queryFn: aiApi.calendarInsights });
  const upload = useMutation({
    mutationFn: (f: File) => aiApi.uploadCalendar(f),
    onSuccess: (r) => {
      toast.success(r.message ?? `${r.calendar.events} calendar events imported`);
      setFile(null);
      if (input.current) input.current.value = '';
      return client.invalidateQueries({ queryKey: [...aiKeys.all(), 'calendar-insights'] });
    },
    onError: (e) => toast.error(errorMessage(e, 'Error uploading calendar')),
  });

  return (
    <div className="card">
      <h2>Calendar insights</h2>
      {canWrite && <form className="row ai-batch-controls" onSubmit={(e) => { e.preventDefault(); if (file) upload.mutate(file); }}>
        <label className="field">
          <span className="label">iCalendar file (.ics)</span>
          <input ref={input} type="file" accept=".ics,text/calendar" data-testid="calendar-input" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </label>
        <button type="submit" className="btn primary" disabled={!file || upload.isPending}>{upload.isPending ? 'Uploading...' : 'Upload calendar'}</button>
      </form>}
      {insights.isPending ? <Spinner label="Loading calendar insights..." /> : insights.isError ? (
        <p className="form-error" role="alert">{errorMessage(insights.error, 'Error loading calendar insights')}</p>
      ) : insights.data.calendars.length === 0 ? (
        <p className="muted">No calendar uploaded yet{canWrite ? ': upload one to see the spending during each trip' : ''}.</p>
      ) : (
        <>
          <p data-testid="calendar-totals">
            {count(insights.data.calendars.length, 'calendar')}, {count(insights.data.totals.events, 'event')}, {count(insights.data.totals.trips, 'trip')};{' '}
            {count(insights.data.totals.correlatedTransactions, 'transaction')} ({formatUsd(Math.abs(insights.data.totals.correlatedSpend))}) during them.
          </p>
          {insights.data.trips.length > 0 && (
            <div className="table-scroll">
              <table className="table dense" aria-label="Trips">
                <thead><tr><th>Event</th><th>Place</th><th>Dates</th><th className="num">Transactions</th><th className="num">Spent</th><th>By category</th></tr></thead>
                <tbody>
                  {insights.data.trips.map((t, i) => (
                    <tr key={t.eventId ?? i}>
                      <td>{t.summary}</td>
                      <td>{t.location ?? ''}</td>
                      <td className="nowrap">{t.startDate === t.endDate ? t.startDate : `${t.startDate} to ${t.endDate}`}</td>
                      <td className="num">{t.transactionCount}</td>
                      <td className="num">{formatUsd(Math.abs(t.totalSpent))}</td>
                      <td>{(t.byCategory ?? []).map((c) => `${c.category ?? 'Uncategorised'} ${formatUsd(Math.abs(c.amount))}`).join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </div>
  );
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
