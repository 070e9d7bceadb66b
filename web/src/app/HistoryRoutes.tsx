import { ReceiptsPage } from '../features/receipts/routes/ReceiptsPage';
import { MatchesPage } from '../features/matches/routes/MatchesPage';
import { HistoryButton } from '../features/history/components/HistoryPanel';

/** /receipts as the app composes it: the list, with the history feature's History on each row. */
export function ReceiptsRoute() {
  return <ReceiptsPage rowActions={(r) => <HistoryButton kind="receipt" id={r.id} label={r.original_filename} />} />;
}

/** /matches as the app composes it: each match with its History. */
export function MatchesRoute() {
  return <MatchesPage rowActions={(m) => <HistoryButton kind="match" id={m.id} label={`match ${m.original_filename ?? ''}`.trim()} />} />;
}
