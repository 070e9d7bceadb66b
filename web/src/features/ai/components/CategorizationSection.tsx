import { useState } from 'react';
import { toast } from 'react-toastify';
import { predictionSource, type Categorization } from '../api/ai';
import { useCategories, useFeedback } from '../api/queries';
import { aiConfidenceBadge } from '../badges';
import { useCanWrite } from '../../../lib/roles';

/** The predicted category with its confidence badge, and 'was this correct' feedback (spec section 2). */
export function CategorizationSection({ transactionId, categorization }: { transactionId: string; categorization: Categorization }) {
  const [mode, setMode] = useState<'ask' | 'pick' | 'done'>('ask');
  const [picked, setPicked] = useState('');
  const categories = useCategories(mode === 'pick');
  const feedback = useFeedback();
  // Feedback is recorded (an event): an auditor reads the prediction only.
  const canWrite = useCanWrite();
  const predictedId = categorization.predictedCategoryId ?? null;
  const confidence = typeof categorization.confidence === 'number' ? categorization.confidence : null;
  const badge = confidence === null ? null : aiConfidenceBadge(confidence);
  const source = predictionSource(categorization);

  const send = (actualCategoryId: string) =>
    feedback.mutate(
      { transactionId, actualCategoryId, predictedCategoryId: predictedId, confidence },
      {
        onSuccess: () => {
          setMode('done');
          toast.success('Categorization feedback recorded');
        },
        onError: () => toast.error('Error recording feedback'),
      },
    );

  return (
    <>
      {categorization.predictedCategory ? (
        <p>
          <span className="muted">Predicted cost code name:</span> <strong data-testid="ai-predicted">{categorization.predictedCategory}</strong>{' '}
          {badge && <span className={`badge confidence ${badge.tone}`} data-testid="ai-confidence" data-level={badge.level}>{badge.text}</span>}
          {source && <span className="muted"> ({source})</span>}
        </p>
      ) : (
        <p>No category could be predicted for this transaction.</p>
      )}

      {!canWrite ? null : mode === 'done' ? (
        <p role="status">Thank you: your feedback was recorded.</p>
      ) : mode === 'pick' ? (
        <form className="row ai-feedback" onSubmit={(e) => { e.preventDefault(); if (picked) send(picked); }}>
          <label className="field">
            <span className="label">Correct category</span>
            <select value={picked} onChange={(e) => setPicked(e.target.value)} disabled={categories.isLoading}>
              <option value="">{categories.isLoading ? 'Loading categories...' : 'Select category'}</option>
              {(categories.data ?? []).filter((c) => c.id !== predictedId).map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
            </select>
          </label>
          {categories.isError && <p className="field-error" role="alert">Failed to load categories.</p>}
          <button type="submit" className="btn primary small" disabled={!picked || feedback.isPending}>Send correction</button>
          <button type="button" className="btn small" onClick={() => setMode('ask')}>Back</button>
        </form>
      ) : (
        <div className="row ai-feedback" role="group" aria-label="Was this correct?">
          <span>Was this correct?</span>
          <button type="button" className="btn small" disabled={!predictedId || feedback.isPending} onClick={() => predictedId && send(predictedId)}>Yes</button>
          <button type="button" className="btn small" disabled={feedback.isPending} onClick={() => setMode('pick')}>No</button>
        </div>
      )}
    </>
  );
}
