import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { authApi, type User } from '../../../lib/auth-api';
import { useErrorToast, useQueryScope } from '../../../lib/query-scope';
import { useSession } from '../../../lib/session';

/** The signed-in person's profile, per person. */
export const profileKeys = {
  me: (userId: string | null) => ['profile', userId] as const,
};

/** GET /auth/profile; a failure toasts 'Failed to load profile information'. */
export function useProfile() {
  const { userId } = useQueryScope();
  const q = useQuery({ queryKey: profileKeys.me(userId), queryFn: authApi.profile, staleTime: 0 });
  useErrorToast(q, 'Failed to load profile information');
  return q;
}

/** Changes to the profile, the password and the sessions. */
export function useProfileWrites() {
  const client = useQueryClient();
  const { userId } = useQueryScope();
  const key = profileKeys.me(userId);
  return {
    /** New names; the profile shown and the session's user become the answer (or the names sent, when the answer has none). */
    update: useMutation({
      mutationFn: async ({ firstName, lastName }: { firstName: string; lastName: string }): Promise<User> => {
        const answer = await authApi.updateProfile(firstName, lastName);
        return answer ?? { ...client.getQueryData<User>(key)!, firstName, lastName };
      },
      onSuccess: (user) => {
        client.setQueryData(key, user);
        useSession.getState().setUser(user);
      },
    }),
    changePassword: useMutation({ mutationFn: ({ currentPassword, newPassword }: { currentPassword: string; newPassword: string }) => authApi.changePassword(currentPassword, newPassword) }),
    logoutAll: useMutation({ mutationFn: () => authApi.logoutAll() }),
  };
}
