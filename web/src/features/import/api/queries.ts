import { useMutation } from '@tanstack/react-query';
import { importApi, type Mapping } from './import';

/**
 * Imports one statement. Nothing cached needs reloading here: the screens that list what an
 * import adds (transactions, dashboard) read afresh whenever they open, and wait for this tab's
 * write to be listed (X-Min-Position, lib/read-side.ts).
 */
export function useImportStatement() {
  return useMutation({
    mutationFn: ({ file, onProgress, mapping }: { file: File; onProgress: (fraction: number) => void; mapping?: Mapping }) => importApi.upload(file, onProgress, mapping),
  });
}
