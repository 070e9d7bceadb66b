import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { toast } from 'react-toastify';
import { similarOf } from '../api/ai';
import { useCheckDuplicates } from '../api/queries';
import { AiAnalysisModal, type AnalysedTransaction } from './AiAnalysisModal';
import { useCanWrite } from '../../../lib/roles';

export const DUPLICATES_TAB = '/ai-dashboard?tab=duplicates';

/** The AI row actions of /transactions: AI analysis (the modal) and duplicate check (a toast). */
export function AiRowActions({ transaction }: { transaction: AnalysedTransaction }) {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const duplicates = useCheckDuplicates();
  // The duplicate check records the groups it finds (command side): not an auditor's. The analysis is a read.
  const canWrite = useCanWrite();

  const check = async () => {
    try {
      const result = await duplicates.mutateAsync(transaction.id);
      const n = similarOf(result).length;
      if (result.isDuplicate || n > 0) {
        toast.warning(
          <span>
            Duplicate detected: {n} similar transactions found.{' '}
            <a href={DUPLICATES_TAB} onClick={(e) => { e.preventDefault(); void navigate(DUPLICATES_TAB); }}>Review duplicates</a>
          </span>,
        );
      } else {
        toast.info('No duplicates found');
      }
    } catch {
      toast.error('Error checking duplicates');
    }
  };

  const checking = duplicates.isPending;
  return (
    <>
      <button type="button" className="btn small" aria-label={`AI analysis ${transaction.description}`} title="AI analysis" onClick={() => setOpen(true)}>AI</button>
      {canWrite && (
        <button type="button" className="btn small" aria-label={`Check duplicates ${transaction.description}`} title="Check for duplicates" disabled={checking} onClick={() => void check()}>
          {checking ? 'Checking...' : 'Duplicates'}
        </button>
      )}
      {open && <AiAnalysisModal transaction={transaction} onClose={() => setOpen(false)} />}
    </>
  );
}
