import { useMutation, useQueryClient } from '@tanstack/react-query';
import { settingsApi, settingsKeys, type SettingKey } from './settings';

/** Asks the server to try the language model now; the answer becomes the connection status shown. */
export function useTestConnection() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: settingsApi.testConnection,
    onSuccess: (result) => client.setQueryData(settingsKeys.connection(), result),
  });
}

/**
 * Saves the general settings that changed, one call each, in order; the settings load again
 * afterwards whatever the outcome (a failure part-way may have saved the first ones).
 */
export function useSaveSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (changes: Array<[SettingKey, number | boolean]>) => {
      for (const [key, value] of changes) await settingsApi.update(key, value);
    },
    onSettled: () => client.invalidateQueries({ queryKey: settingsKeys.all() }),
  });
}
