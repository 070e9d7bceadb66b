import type { ReactNode } from 'react';

/** One figure card: a title, the value, and a line under it. `testId` names it for tests. */
export function Stat({ title, value, sub, testId, tone, children }: { title: string; value: ReactNode; sub?: ReactNode; testId: string; tone?: 'success' | 'warning' | 'danger'; children?: ReactNode }) {
  return (
    // A group, not a landmark: a screen reader's landmark list keeps to the page's sections.
    <div role="group" className={`stat dash-stat${tone ? ` tone-${tone}` : ''}`} data-testid={testId} aria-label={title}>
      <h3 className="stat-title">{title}</h3>
      <span className="stat-value" data-testid={`${testId}-value`}>{value}</span>
      {sub !== undefined && <span className="muted stat-sub" data-testid={`${testId}-sub`}>{sub}</span>}
      {children}
    </div>
  );
}

export const NO_DATA = 'no data';
