import { useQuery } from '@tanstack/react-query';
import { errorMessage } from '../../../lib/api-client';
import { systemApi, type JobFailures } from '../api/system';

const left = (s: number | null) => (s === null ? '…' : s < 90 ? `${Math.ceil(s)} s` : `${Math.ceil(s / 60)} min`);

const JOB_NAMES: Record<string, string> = { 'receipt.ocr': 'Receipt reading (OCR)', 'match.auto': 'Auto-match' };

/** Jobs whose last attempt failed: kept by the Kafka queue's dead-letter topic. */
function FailedJobs() {
  const q = useQuery({ queryKey: ['system', 'job-failures'], queryFn: systemApi.jobFailures });
  return (
    <section className="card" aria-label="Failed jobs">
      <h2>Failed jobs</h2>
      {q.isPending ? <p className="muted">Loading…</p>
        : q.error ? <div className="form-error" role="alert">{errorMessage(q.error, 'Could not load the failed jobs')}</div>
          : <FailedJobsTable data={q.data} />}
    </section>
  );
}

function FailedJobsTable({ data }: { data: JobFailures }) {
  if (data.failures.length === 0) {
    return <p className="muted">{data.queue === 'kafka' ? 'No job has failed.' : 'Jobs run in the server process; a failed receipt reading shows on its receipt.'}</p>;
  }
  return (
    <table className="table">
      <thead><tr><th>Job</th><th>Failed at</th><th>Attempts</th><th>Error</th></tr></thead>
      <tbody>
        {data.failures.map((f) => (
          <tr key={f.id}>
            <td>{JOB_NAMES[f.type] ?? f.type}</td>
            <td><time dateTime={f.failedAt}>{new Date(f.failedAt).toLocaleString()}</time></td>
            <td>{f.attempts}</td>
            <td>{f.error}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The System page (admins): projections and blue-green rebuilds, refreshed every 2 s while one runs; failed jobs. */
export function SystemPage() {
  const q = useQuery({
    queryKey: ['system', 'rebuilds'],
    queryFn: systemApi.rebuilds,
    refetchInterval: (query) => (query.state.data?.rebuilds.some((r) => r.state === 'building') ? 2000 : false),
  });
  if (q.isPending) return <section className="page"><p className="muted">Loading…</p></section>;
  if (q.error) return <section className="page"><div className="form-error" role="alert">{errorMessage(q.error, 'Could not load the system status')}</div></section>;
  const s = q.data;
  return (
    <section className="page">
      <h1>System</h1>
      <section className="card" aria-label="Rebuilds">
        <h2>Rebuilds</h2>
        {s.rebuilds.length === 0 ? (
          <p className="muted">No projection has been rebuilt since the server started.</p>
        ) : (
          <table className="table">
            <thead><tr><th>Projection</th><th>Version</th><th>Generation</th><th>State</th><th>Progress</th><th>Events/s</th><th>Time left</th></tr></thead>
            <tbody>
              {s.rebuilds.map((r) => (
                <tr key={`${r.projection}-${r.generation}`} data-state={r.state}>
                  <td>{r.projection}</td>
                  <td>{r.version}</td>
                  <td>{r.generation}</td>
                  <td>{r.state}{r.error ? ` (${r.error})` : ''}</td>
                  <td><progress max={Math.max(r.head, 1)} value={r.position} aria-label={`${r.projection} progress`} /> {r.position}/{r.head}</td>
                  <td>{r.eventsPerSecond}</td>
                  <td>{r.state === 'building' ? left(r.secondsLeft) : '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="card" aria-label="Projections">
        <h2>Projections</h2>
        <p className="muted">Event log head {s.head}; read models at {s.position}.</p>
        <table className="table">
          <thead><tr><th>Projection</th><th>Version</th><th>Generation</th><th>Position</th></tr></thead>
          <tbody>
            {s.projections.map((p) => (
              <tr key={p.name}><td>{p.name}</td><td>{p.version}</td><td>{p.generation}</td><td>{p.position}</td></tr>
            ))}
          </tbody>
        </table>
      </section>
      <FailedJobs />
    </section>
  );
}
