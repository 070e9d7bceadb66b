import { useQuery } from '@tanstack/react-query';
import { masterApi, type MasterItem, type MasterKind } from './masterdata-api';
import { useQueryScope } from './query-scope';

/**
 * The company's master data lists, shared by the master data screen (which changes them), the
 * transactions screen (its edit dropdowns) and the AI screens (categories): one cache entry per
 * list, so a change on one screen is what the others show next.
 */
export const masterKeys = {
  all: (companyId: string | null) => ['masterdata', companyId ?? 'none'] as const,
  list: (companyId: string | null, kind: MasterKind) => [...masterKeys.all(companyId), kind] as const,
};

/** One list (GET /masterdata/{kind}). */
export function useMasterList(kind: MasterKind, enabled = true) {
  const { companyId } = useQueryScope();
  return useQuery({ queryKey: masterKeys.list(companyId, kind), queryFn: () => masterApi.list(kind), enabled });
}

export interface MasterLists {
  categories: MasterItem[];
  jobNumbers: MasterItem[];
  costCodes: MasterItem[];
}

const NONE: MasterItem[] = [];

/** The three lists at once (empty until they arrive), and the first failure among them. */
export function useMasterLists(): MasterLists & { error: unknown; errorUpdatedAt: number } {
  const categories = useMasterList('categories');
  const jobNumbers = useMasterList('job_numbers');
  const costCodes = useMasterList('cost_codes');
  const failed = [categories, jobNumbers, costCodes].filter((q) => q.isError);
  return {
    categories: categories.data ?? NONE,
    jobNumbers: jobNumbers.data ?? NONE,
    costCodes: costCodes.data ?? NONE,
    error: failed[0]?.error ?? null,
    errorUpdatedAt: Math.max(0, ...failed.map((q) => q.errorUpdatedAt)),
  };
}
