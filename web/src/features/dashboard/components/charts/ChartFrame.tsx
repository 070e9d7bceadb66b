import { Suspense, useId, type ReactNode } from 'react';

export interface Column<R> {
  label: string;
  value: (row: R) => string;
}

/**
 * A chart with its accessible fallback: a caption that says what it shows, the chart (loaded
 * lazily, focusable, arrow keys move through its points), and the same figures as a table
 * behind a disclosure that keyboards and screen readers open.
 */
export function ChartFrame<R>({ title, note, rows, columns, testId, children }: { title: string; note?: string; rows: R[]; columns: Array<Column<R>>; testId: string; children: ReactNode }) {
  const id = useId();
  return (
    <figure className="chart card" aria-labelledby={`${id}-title`} data-testid={testId}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
        {note && <span className="muted chart-note" data-testid={`${testId}-note`}>{note}</span>}
      </figcaption>
      {rows.length === 0 ? <p className="muted" role="status">no data</p> : (
        <>
          <div className="chart-area">
            <Suspense fallback={<p className="muted">Loading chart...</p>}>{children}</Suspense>
          </div>
          <details className="chart-table">
            <summary>Show data table</summary>
            <table className="table dense" aria-label={`${title} data`}>
              <thead><tr>{columns.map((c) => <th key={c.label} scope="col">{c.label}</th>)}</tr></thead>
              <tbody>{rows.map((r, i) => <tr key={i}>{columns.map((c) => <td key={c.label}>{c.value(r)}</td>)}</tr>)}</tbody>
            </table>
          </details>
        </>
      )}
    </figure>
  );
}
