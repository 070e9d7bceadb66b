/** The projections' feature modules; the runner and `make rebuild` take their projections, in this order. */
import type { Projection, ProjectionModule } from './core/projection';
import { accountProjections } from './accounts/module';
import { masterDataProjections } from './masterdata/module';
import { transactionProjections } from './transactions/module';
import { receiptProjections } from './receipts/module';
import { matchProjections } from './matches/module';
import { analyticsProjections } from './analytics/module';
import { settingsProjections } from './settings/module';
import { aiProjections } from './ai/module';

export { accountProjections, masterDataProjections, transactionProjections, receiptProjections, matchProjections, analyticsProjections, settingsProjections, aiProjections };

export const projectionModules: ReadonlyArray<ProjectionModule> = [accountProjections, masterDataProjections, transactionProjections, receiptProjections, matchProjections, analyticsProjections, settingsProjections, aiProjections];

/** Every projection the product runs; the runner and `make rebuild` take this list. */
export function allProjections(): Projection[] {
  return projectionModules.flatMap((m) => m.projections);
}
