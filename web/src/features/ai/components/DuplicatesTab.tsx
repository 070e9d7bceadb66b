import { toast } from 'react-toastify';
import { Spinner } from '../../../components/Spinner';
import type { DuplicateGroup, GroupStatus } from '../api/ai';
import { useDuplicateGroups, useGroupStatus } from '../api/queries';
import { duplicateGroupTone, percent } from '../badges';
import { BatchPanel } from './BatchPanel';
import { useCanWrite } from '../../../lib/roles';
import { GroupRecords } from './GroupRecords';
import { loadErrorText, useLoadErrorToast } from './useLoadErrorToast';

const STATUS_TONE: Record<string, string> = { pending: 'warning', confirmed: 'danger', dismissed: '' };

/** Duplicate Detection: batch processing, then the groups; Confirm and Dismiss only on pending groups. */
export function DuplicatesTab() {
  const groups = useDuplicateGroups();
  const update = useGroupStatus();
  // Running a batch and deciding a group record events: an auditor reads the groups only.
  const canWrite = useCanWrite();
  useLoadErrorToast(groups.isError);

  const decide = (group: DuplicateGroup, status: GroupStatus) =>
    update.mutate({ id: group.id, status }, {
      onSuccess: () => toast.success(status === 'confirmed' ? 'Duplicate group confirmed' : 'Duplicate group dismissed'),
      onError: () => toast.error('Error updating duplicate group'),
    });

  return (
    <>
      {canWrite && <BatchPanel />}
      <div className="card">
        <h2>Duplicate groups</h2>
        {groups.isPending ? <Spinner label="Loading duplicate groups..." /> : groups.isError ? (
          <div className="form-error" role="alert">{loadErrorText(groups.error)}</div>
        ) : groups.data.length === 0 ? (
          <p className="empty" role="status">No duplicate groups found.</p>
        ) : (
          <div className="table-scroll">
            <table className="table" aria-label="Duplicate groups">
              <thead><tr><th>Confidence</th><th className="num">Duplicates</th><th>Records</th><th>Status</th><th>Actions</th></tr></thead>
              <tbody>
                {groups.data.map((g) => (
                  <tr key={g.id} data-testid={`group-${g.id}`}>
                    <td><span className={`badge confidence ${duplicateGroupTone(g.confidence_score)}`} data-tone={duplicateGroupTone(g.confidence_score)}>{percent(g.confidence_score)}</span></td>
                    <td className="num">{g.duplicate_count}</td>
                    <td><GroupRecords group={g} /></td>
                    <td><span className={`badge ${STATUS_TONE[g.status] ?? ''}`}>{g.status}</span></td>
                    <td className="actions">
                      {canWrite && g.status === 'pending' && (
                        <>
                          <button type="button" className="btn small danger" disabled={update.isPending} onClick={() => decide(g, 'confirmed')}>Confirm</button>
                          <button type="button" className="btn small" disabled={update.isPending} onClick={() => decide(g, 'dismissed')}>Dismiss</button>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </>
  );
}
