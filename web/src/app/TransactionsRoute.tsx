import { TransactionsPage } from '../features/transactions/routes/TransactionsPage';
import { AiRowActions } from '../features/ai/components/AiRowActions';

/** /transactions as the app composes it: the list, with the AI feature's row actions on each row. */
export function TransactionsRoute() {
  return <TransactionsPage rowActions={(t) => <AiRowActions transaction={{ id: t.id, description: t.description }} />} />;
}
export default TransactionsRoute;
