import { useMutation, useQueryClient } from '@tanstack/react-query';
import { masterApi, type MasterKind } from '../../../lib/masterdata-api';
import { masterKeys } from '../../../lib/masterdata-queries';
import { useQueryScope } from '../../../lib/query-scope';

/**
 * Changes to one master data list. Each reloads every list of the company once the server has
 * answered (a cost code import may create categories; the transactions and AI screens read the
 * same lists).
 */
export function useMasterWrites(kind: MasterKind) {
  const client = useQueryClient();
  const { companyId } = useQueryScope();
  const onSuccess = () => client.invalidateQueries({ queryKey: masterKeys.all(companyId) });
  return {
    add: useMutation({ mutationFn: ({ name, categoryId }: { name: string; categoryId?: string }) => masterApi.add(kind, name, categoryId), onSuccess }),
    update: useMutation({ mutationFn: ({ id, name, categoryId }: { id: string; name: string; categoryId?: string }) => masterApi.update(kind, id, name, categoryId), onSuccess }),
    remove: useMutation({ mutationFn: (id: string) => masterApi.remove(kind, id), onSuccess }),
    importCsv: useMutation({ mutationFn: (file: File) => masterApi.importCsv(kind, file), onSuccess }),
  };
}
