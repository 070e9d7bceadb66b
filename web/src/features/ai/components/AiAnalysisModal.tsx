import { useEffect } from 'react';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { Spinner } from '../../../components/Spinner';
import { useAnalysis } from '../api/queries';
import { AnalysisSections } from './AnalysisSections';
import '../ai.css';
import { Dialog } from '../../../components/Dialog';

export interface AnalysedTransaction {
  id: string;
  description: string;
}

/** Why the whole analysis failed: the server's text, else the client's message (spec section 8). */
export function analysisFailure(error: unknown): string {
  return errorMessage(error, error instanceof Error && error.message ? error.message : 'Unknown error');
}

/** The AI Analysis modal of /transactions: the four analyses of one transaction. */
export function AiAnalysisModal({ transaction, onClose }: { transaction: AnalysedTransaction; onClose: () => void }) {
  const analysis = useAnalysis(transaction.id);
  const failure = analysis.isError ? analysisFailure(analysis.error) : null;

  useEffect(() => {
    if (failure) toast.error(`Error performing AI analysis: ${failure}`);
  }, [failure]);

  return (
    <Dialog title="AI Analysis" onClose={onClose} testId="ai-analysis-modal" className="ai-modal" footer={<button type="button" className="btn" onClick={onClose}>Close</button>}>
      <p className="muted">{transaction.description}</p>
      {analysis.isPending ? (
        <Spinner label="Analysing transaction..." />
      ) : failure ? (
        <div className="form-error" role="alert">
          Error performing AI analysis: {failure}{' '}
          <button type="button" className="btn small" onClick={() => void analysis.refetch()}>Try again</button>
        </div>
      ) : analysis.data ? (
        <AnalysisSections transactionId={transaction.id} analysis={analysis.data} />
      ) : null}
    </Dialog>
  );
}
