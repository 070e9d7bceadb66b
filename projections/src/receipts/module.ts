import type { ProjectionModule } from '../core/projection';
import { receiptsProjection } from './receipts';
import { receiptDateOrdersProjection } from './date-orders';
import { receiptFilesProjection } from './receipt-files';

/** Receipts, the date orders learned per merchant, and the files behind them. */
export const receiptProjections: ProjectionModule = { feature: 'receipts', projections: [receiptsProjection, receiptDateOrdersProjection, receiptFilesProjection] };
