import type { Projection } from './core/projection';
import { companiesProjection } from './accounts/companies';
import { sessionsProjection } from './accounts/sessions';
import { usersProjection } from './accounts/users';
import { masterDataProjection } from './masterdata/items';
import { transactionsProjection } from './transactions/transactions';
import { receiptsProjection } from './receipts/receipts';
import { receiptDateOrdersProjection } from './receipts/date-orders';
import { receiptFilesProjection } from './receipts/receipt-files';
import { matchesProjection } from './matches/matches';
import { matchFiguresProjection } from './matches/figures';
import { aiLearningProjection } from './ai/learning';
import { analyticsProjection } from './analytics/analytics';
import { settingsProjection } from './settings/settings';
import { calendarProjection } from './ai/calendar';

/** Every projection the product runs; the runner and `make rebuild` take this list. */
export function allProjections(): Projection[] {
  return [usersProjection, sessionsProjection, companiesProjection, masterDataProjection, transactionsProjection, receiptsProjection, receiptDateOrdersProjection, receiptFilesProjection, matchesProjection, matchFiguresProjection, analyticsProjection, settingsProjection, calendarProjection, aiLearningProjection];
}
