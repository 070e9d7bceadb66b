/**
 * A parsed statement row with its assignment, as the import decides on it (pure: the import
 * route runs it on the request thread for small files, the event store's import thread for
 * large ones, see import-staged.ts).
 */
import { dedupKeyOf, type AssignmentDetail, type CandidateRow, type ParsedRow } from '@paperlink/domain';

export function candidateRow(r: ParsedRow, a: Pick<AssignmentDetail, 'assignedTo' | 'providedName' | 'status'>): CandidateRow {
  return {
    row: r.row,
    date: r.date,
    description: r.description,
    amountCents: r.amountCents,
    ...(r.externalId ? { externalId: r.externalId } : {}),
    ...(r.salesTaxCents !== undefined ? { salesTaxCents: r.salesTaxCents } : {}),
    ...(r.currency ? { currency: r.currency } : {}),
    ...(r.category ? { category: r.category } : {}),
    ...(r.jobNumber ? { jobNumber: r.jobNumber } : {}),
    ...(r.costCode ? { costCode: r.costCode } : {}),
    assignedTo: a.assignedTo,
    ...(a.providedName ? { providedName: a.providedName } : {}),
    assignment: a.status,
    dedupKey: dedupKeyOf(r.date, r.description, r.amountCents),
  };
}
