import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { toast } from 'react-toastify';
import { toastAutoMatch } from '../../../lib/outcome-toasts';
import { useSession } from '../../../lib/session';
import { matchesApi, type Match } from './matches';

/** This screen's server state, per company and person. */
export const matchKeys = { all: (companyId: string | null, userId: string | null) => ['matches', companyId, userId] as const };

const useKey = () => matchKeys.all(useSession((s) => s.currentCompanyId), useSession((s) => s.user?.id ?? null));

/**
 * One page of one list (GET /matches?status&limit&offset) and both lists' counts (GET
 * /matches/stats); a failure toasts 'Error loading matches' and shows an empty list.
 */
export function useMatchPage(status: 'pending' | 'confirmed', page: number, search = '') {
  const key = useKey();
  const q = useQuery({ queryKey: [...key, 'page', status, page, search], queryFn: () => matchesApi.page(status, page, undefined, search), staleTime: 0, placeholderData: keepPreviousData });
  const counts = useQuery({ queryKey: [...key, 'counts'], queryFn: matchesApi.counts, staleTime: 0 });
  const failed = q.isError || counts.isError;
  const failedAt = Math.max(q.errorUpdatedAt, counts.errorUpdatedAt);
  useEffect(() => {
    if (failed) toast.error('Error loading matches', { toastId: `matches-error-${failedAt}` });
  }, [failed, failedAt]);
  return {
    matches: q.isError ? [] : q.data,
    counts: counts.isError ? { pending_matches: 0, confirmed_matches: 0 } : counts.data,
    loading: q.isPending && !q.isError,
  };
}

const DONE = { confirm: 'Match confirmed', reject: 'Match rejected', remove: 'Match deleted' } as const;
const FAILED = { confirm: 'Error confirming match', reject: 'Error rejecting match', remove: 'Error deleting match' } as const;
export type MatchAction = keyof typeof DONE;

/** Confirm, reject or delete one match, then load the lists again. */
export function useMatchAction() {
  const client = useQueryClient();
  const key = useKey();
  return useMutation({
    mutationFn: ({ m, action }: { m: Match; action: MatchAction }) => matchesApi[action](m.id),
    onSuccess: (_r, { action }) => {
      toast.success(DONE[action]);
      return client.invalidateQueries({ queryKey: key });
    },
    onError: (_e, { action }) => {
      toast.error(FAILED[action]);
    },
  });
}

/** Auto-match at the call layer's default threshold; the toast says how many were matched, without a green success for none. */
export function useAutoMatchAll() {
  const client = useQueryClient();
  const key = useKey();
  return useMutation({
    mutationFn: () => matchesApi.autoMatch(),
    onSuccess: (r) => {
      toastAutoMatch(r.matched);
      return client.invalidateQueries({ queryKey: key });
    },
    onError: () => {
      toast.error('Error running auto-match');
    },
  });
}
