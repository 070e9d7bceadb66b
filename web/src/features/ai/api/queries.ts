import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { tokenStorage } from '../../../lib/storage';
import { useCanWrite } from '../../../lib/roles';
import { useMasterList } from '../../../lib/masterdata-queries';
import { aiApi, type Feedback, type GroupStatus, type RecordKind } from './ai';

/** Query keys carry the company, so a company switch never shows the previous company's answers. */
export const aiKeys = {
  all: () => ['ai', tokenStorage.companyId() ?? 'none'] as const,
  analysis: (id: string) => [...aiKeys.all(), 'analysis', id] as const,
  stats: () => [...aiKeys.all(), 'dashboard-stats'] as const,
  groups: () => [...aiKeys.all(), 'duplicate-groups'] as const,
  patterns: () => [...aiKeys.all(), 'recurring-patterns'] as const,
};

/** The analysis is asked for afresh each time the modal opens. */
export function useAnalysis(transactionId: string) {
  const record = useCanWrite();
  return useQuery({ queryKey: aiKeys.analysis(transactionId), queryFn: () => aiApi.analyzeForModal(transactionId, record), retry: false, gcTime: 0, staleTime: 0, refetchOnWindowFocus: false });
}

/** The company's categories to pick the right one from: the master data list every screen shares. */
export function useCategories(enabled: boolean) {
  return useMasterList('categories', enabled);
}

export function useFeedback() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Feedback) => aiApi.feedback(body),
    onSuccess: () => client.invalidateQueries({ queryKey: aiKeys.stats() }),
  });
}

export function useDashboardStats() {
  return useQuery({ queryKey: aiKeys.stats(), queryFn: aiApi.dashboardStats, retry: false });
}

export function useDuplicateGroups() {
  return useQuery({ queryKey: aiKeys.groups(), queryFn: aiApi.groups, retry: false });
}

export function useRecurringPatterns() {
  return useQuery({ queryKey: aiKeys.patterns(), queryFn: aiApi.patterns, retry: false });
}

export function useGroupStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: string; status: GroupStatus }) => aiApi.setGroupStatus(id, status),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: aiKeys.groups() }), client.invalidateQueries({ queryKey: aiKeys.stats() })]),
  });
}

/** After a duplicate check or a batch the lists and counts on /ai-dashboard are out of date. */
export function useInvalidateDuplicates() {
  const client = useQueryClient();
  return () => Promise.all([client.invalidateQueries({ queryKey: aiKeys.groups() }), client.invalidateQueries({ queryKey: aiKeys.stats() })]);
}

/** The duplicate check of one transaction (recorded on the command side): the groups and counts load again after it. */
export function useCheckDuplicates() {
  const invalidate = useInvalidateDuplicates();
  return useMutation({ mutationFn: (transactionId: string) => aiApi.checkDuplicates(transactionId), onSuccess: () => void invalidate() });
}

/** Batch duplicate detection over the newest transactions or receipts: the groups and counts load again after it, whatever its outcome. */
export function useBatch() {
  const invalidate = useInvalidateDuplicates();
  return useMutation({ mutationFn: (kind: RecordKind) => aiApi.batch(kind), onSettled: () => void invalidate() });
}
