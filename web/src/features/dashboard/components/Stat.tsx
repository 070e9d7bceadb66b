import type { ReactNode } from 'react';

/** One figure card: a title, the value, and a line under it. `testId` names it for tests. */
export function Stat({ title, value, sub, testId, tone, children }: { title: string; value: ReactNode; sub?: ReactNode; testId: string; tone?: 'success' | 'warning' | 'danger'; children?: ReactNode }) {
  return (
    <section className={`stat dash-stat${tone ? ` tone-${tone}` : ''}`} data-testid={testId} aria-label={title}>
      <h3 className="stat-title">{title}</h3>
      <span className="stat-value" data-testid={`${testId}-value`}>{value}</span>
      {sub !== undefined && <span className="muted stat-sub" data-testid={`${testId}-sub`}>{sub}</span>}
      {children}
    </section>
  );
}

export const NO_DATA = 'no data';
