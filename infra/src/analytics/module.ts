import { analyticsProjections } from '@paperlink/projections';
import { analyticsQueries } from '@paperlink/query-api';
import type { Feature } from '../boot/feature';

/** The dashboard's figures and their export (the workbook built in the worker pool). */
export const analytics: Feature = {
  feature: 'analytics',
  queries: analyticsQueries,
  projections: analyticsProjections,
  wire: (k) => ({ routes: analyticsQueries.routers!({ store: k.readStore, xlsx: (rows) => k.cpu.analyticsXlsx(rows) }) }),
};
