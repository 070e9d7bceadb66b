import { useQuery } from '@tanstack/react-query';
import { useQueryScope } from '../../../lib/query-scope';
import { historyApi, type HistoryKind } from './history';

/** The history of one record, per company and person. */
export const historyKeys = {
  of: (companyId: string | null, userId: string | null, kind: HistoryKind, id: string) => ['history', companyId, userId, kind, id] as const,
};

/** GET /history/{kind}/{id}, read afresh each time the panel opens (a record's history only grows). */
export function useHistory(kind: HistoryKind, id: string) {
  const { companyId, userId } = useQueryScope();
  return useQuery({ queryKey: historyKeys.of(companyId, userId, kind, id), queryFn: () => historyApi.get(kind, id), staleTime: 0 });
}
