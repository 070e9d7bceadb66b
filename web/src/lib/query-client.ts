import { QueryClient } from '@tanstack/react-query';

/**
 * Server state for the web app (TanStack Query). The API client already retries 429s and
 * refreshes tokens, so queries do not retry again; data counts as fresh for 30 s, and a
 * window regaining focus does not refetch (admins' dashboard refreshes on its own timer).
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, staleTime: 30_000, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

export const queryClient = createQueryClient();
