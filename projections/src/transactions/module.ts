import type { ProjectionModule } from '../core/projection';
import { transactionsProjection } from './transactions';

/** Transactions and the keys imports de-duplicate by. */
export const transactionProjections: ProjectionModule = { feature: 'transactions', projections: [transactionsProjection] };
