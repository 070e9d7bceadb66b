import { z } from 'zod';
import { calendarDate } from '@paperlink/domain/http/schemas';

const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** GET /audit/export: the period, inclusive, on the events' time (metadata.occurredAt, UTC); both optional. */
export const AuditExportQuery = z.object({
  startDate: z.preprocess(blankToUndefined, calendarDate.optional()),
  endDate: z.preprocess(blankToUndefined, calendarDate.optional()),
});
