import { formatUsd } from '../../../lib/format';
import type { Analytics } from '../api/dashboard';
import { formatPercent } from '../metrics';
import { NO_DATA, Stat } from './Stat';

/** Spec section 2, admins: Total Expenses, Matched Expenses, Processing Rate, Avg Receipt Amount. */
export function AdminCards({ analytics }: { analytics: Analytics | undefined }) {
  const f = analytics?.financial;
  const p = analytics?.processing;
  return (
    <div className="stat-cards" data-testid="admin-cards">
      <Stat title="Total Expenses" testId="card-total-expenses" value={f ? formatUsd(Math.abs(f.totalExpenses)) : NO_DATA} />
      <Stat title="Matched Expenses" testId="card-matched-expenses" value={f ? formatUsd(Math.abs(f.matchedExpenses)) : NO_DATA} sub={f ? `${formatPercent(f.matchRate)} of expenses matched` : undefined} />
      <Stat title="Processing Rate" testId="card-processing-rate" value={p ? formatPercent(p.processingRate) : NO_DATA} sub={p ? `${p.processedReceipts} of ${p.totalReceipts} receipts` : undefined} />
      <Stat title="Avg Receipt Amount" testId="card-avg-receipt" value={p ? formatUsd(p.avgAmount) : NO_DATA} />
    </div>
  );
}
