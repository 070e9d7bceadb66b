import { TransactionsPage } from '../features/transactions/routes/TransactionsPage';
import { AiRowActions } from '../features/ai/components/AiRowActions';
import { HistoryButton } from '../features/history/components/HistoryPanel';

/** /transactions as the app composes it: the list, with the AI feature's row actions on each row. */
export function TransactionsRoute() {
  return (
    <TransactionsPage
      rowActions={(t) => (
        <>
          <HistoryButton kind="transaction" id={t.id} label={t.description} />
          <AiRowActions transaction={{ id: t.id, description: t.description }} />
        </>
      )}
    />
  );
}
export default TransactionsRoute;
