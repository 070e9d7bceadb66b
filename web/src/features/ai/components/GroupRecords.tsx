import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { formatUsd } from '../../../lib/format';
import { aiApi, type DuplicateGroup } from '../api/ai';
import { aiKeys } from '../api/queries';

/** Why a group was raised, and its records, read when the person opens them. */
export function GroupRecords({ group }: { group: DuplicateGroup }) {
  const [open, setOpen] = useState(false);
  const ids = group.memberIds ?? [];
  const kind = group.kind ?? 'transaction';
  const members = useQuery({
    queryKey: [...aiKeys.groups(), group.id, 'members'],
    queryFn: () => Promise.all(ids.map((id) => aiApi.member(kind, id))),
    enabled: open && ids.length > 0,
    staleTime: Infinity,
  });
  return (
    <div>
      {(group.reasons ?? []).length > 0 && <div className="muted">{group.reasons!.join('; ')}</div>}
      {ids.length > 0 && (
        <details className="evidence" onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary>{ids.length} {kind}s</summary>
          {members.isLoading ? <span className="muted">Loading...</span> : members.isError ? <span className="field-error">Could not load the records.</span> : (
            <ul className="ai-list">
              {(members.data ?? []).map((m) => <li key={m.id}>{m.date ?? ''} {m.description} {formatUsd(m.amount)}</li>)}
            </ul>
          )}
        </details>
      )}
    </div>
  );
}
