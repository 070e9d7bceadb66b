import type { ReactNode } from 'react';
import { formatUsd } from '../../../lib/format';
import { similarOf, type Analysis } from '../api/ai';
import { CategorizationSection } from './CategorizationSection';

/** One section of the AI Analysis modal: its heading, and its error with details when it failed. */
export function Section({ title, error, details, children, testId }: { title: string; error?: string; details?: unknown; children: ReactNode; testId: string }) {
  return (
    <section className="ai-section" aria-label={title} data-testid={testId}>
      <h3>{title}</h3>
      {error ? (
        <div className="form-error" role="alert">
          <strong>Error:</strong> {error}
          {details !== undefined && details !== null && details !== '' && (
            <details className="evidence">
              <summary>Details</summary>
              <pre className="ai-details">{typeof details === 'string' ? details : JSON.stringify(details, null, 2)}</pre>
            </details>
          )}
        </div>
      ) : children}
    </section>
  );
}

/** The four analyses of spec section 3, each shown on its own, each with its own error. */
export function AnalysisSections({ transactionId, analysis }: { transactionId: string; analysis: Analysis }) {
  const { categorization, duplicateAnalysis, recurringAnalysis, calendarAnalysis } = analysis;
  const similar = similarOf(duplicateAnalysis);
  return (
    <div className="ai-sections">
      <Section title="Intelligent Categorization" error={categorization.error} details={categorization.details} testId="ai-categorization">
        <CategorizationSection transactionId={transactionId} categorization={categorization} />
      </Section>

      <Section title="Duplicate Detection" error={duplicateAnalysis.error} details={duplicateAnalysis.details} testId="ai-duplicates">
        {duplicateAnalysis.isDuplicate ? (
          <>
            <p><span className="badge danger">Possible duplicate</span> {similar.length} similar transaction{similar.length === 1 ? '' : 's'} found</p>
            <ul className="ai-list">
              {similar.map((s, i) => (
                <li key={s.id ?? i}>
                  {s.transaction_date ?? ''} {s.description ?? ''} {formatUsd(s.amount ?? null)}
                  {typeof (s.similarity ?? s.confidence) === 'number' && <span className="muted"> ({Math.round((s.similarity ?? s.confidence)! * 100)}% alike)</span>}
                </li>
              ))}
            </ul>
          </>
        ) : <p>No duplicates found</p>}
      </Section>

      <Section title="Recurring Patterns" error={recurringAnalysis.error} details={recurringAnalysis.details} testId="ai-recurring">
        {recurringAnalysis.hasPattern ? (
          <dl className="details">
            <dt>Description</dt><dd>{recurringAnalysis.patternDescription ?? ''}</dd>
            <dt>Frequency</dt><dd>{recurringAnalysis.frequency ?? ''}</dd>
            {typeof recurringAnalysis.occurrenceCount === 'number' && <><dt>Occurrences</dt><dd>{recurringAnalysis.occurrenceCount}</dd></>}
            {recurringAnalysis.nextExpectedDate && <><dt>Next expected</dt><dd>{recurringAnalysis.nextExpectedDate}</dd></>}
          </dl>
        ) : <p>No recurring pattern found</p>}
      </Section>

      <Section title="Calendar Correlation" error={calendarAnalysis.error} details={calendarAnalysis.details} testId="ai-calendar">
        {calendarAnalysis.hasCorrelation
          ? <p>{calendarAnalysis.correlationDescription ?? ''}</p>
          : <p>{calendarAnalysis.correlationDescription || 'No calendar correlation found'}</p>}
      </Section>
    </div>
  );
}
