import { useState, type ReactNode } from 'react';
import { useDropzone, type FileRejection } from 'react-dropzone';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { Pagination } from '../../../components/Pagination';
import { SearchBox, useUrlSearch } from '../../../components/SearchBox';
import { Spinner } from '../../../components/Spinner';
import { useCanWrite, useSeesWholeCompany } from '../../../lib/roles';
import { useCompanyUsersForFilter } from '../../../lib/company-users';
import { formatUsd } from '../../../lib/format';
import { DEFAULT_RECEIPT_FILTERS, formatFileSize, RECEIPT_MAX_BYTES, type Receipt, type ReceiptFilters } from '../api/receipts';
import { ReceiptDetails } from '../components/ReceiptDetails';
import { useReceiptList, useReceiptWrites } from '../api/queries';

/** How often the list refreshes itself while OCR is running (the list's query polls: api/queries.ts). */
export { POLL_MS } from '../api/queries';

interface UploadRow {
  name: string;
  progress: number;
  state: 'waiting' | 'uploading' | 'done' | 'error';
  message?: string;
}

const STATUS_BADGE: Record<string, string> = { completed: 'success', processing: 'warning', pending: 'warning', failed: 'danger' };
const SORTS: Array<[string, string]> = [['upload_date', 'Upload date'], ['extracted_date', 'Receipt date'], ['extracted_amount', 'Amount'], ['file_size', 'File size'], ['original_filename', 'File name'], ['created_at', 'Created']];

/** Saves a blob under a name; the temporary link is revoked after 1 second (spec section 7). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Spec section 2, /receipts. `rowActions` adds what other features offer on a row (the app passes History). */
export function ReceiptsPage({ rowActions }: { rowActions?: (r: Receipt) => ReactNode } = {}) {
  // Admins and auditors read every member's receipts; an auditor uploads, corrects and deletes none.
  const isAdmin = useSeesWholeCompany();
  const canWrite = useCanWrite();
  const [draft, setDraft] = useState<ReceiptFilters>(DEFAULT_RECEIPT_FILTERS);
  const [filters, setFilters] = useState<ReceiptFilters>(DEFAULT_RECEIPT_FILTERS);
  const [q] = useUrlSearch();
  // The page belongs to one search: a new search starts at page 1.
  const [paging, setPaging] = useState({ q, page: 1 });
  const page = paging.q === q ? paging.page : 1;
  const setPage = (n: number) => setPaging({ q, page: n });
  const [showFilters, setShowFilters] = useState(false);
  const [uploads, setUploads] = useState<UploadRow[]>([]);
  const [uploading, setUploading] = useState(false);
  const [openId, setOpenId] = useState<string | null>(null);
  const { data } = useReceiptList(page, { ...filters, q });
  const users = useCompanyUsersForFilter(isAdmin);
  const writes = useReceiptWrites();

  const uploadAll = async (files: File[]) => {
    setUploading(true);
    setUploads(files.map((f) => ({ name: f.name, progress: 0, state: 'waiting' })));
    const set = (i: number, patch: Partial<UploadRow>) => setUploads((rows) => rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    let ok = 0;
    const failed: string[] = [];
    // Spec section 4: one call per file, one after another.
    for (const [i, file] of files.entries()) {
      set(i, { state: 'uploading' });
      try {
        const r = await writes.upload.mutateAsync({ file, onProgress: (p) => set(i, { progress: p }) });
        set(i, { state: 'done', progress: 1, ...(r.duplicate ? { message: 'Uploaded; the same file was uploaded before' } : {}) });
        ok++;
      } catch (e) {
        const reason = errorMessage(e, 'Upload failed');
        failed.push(`${file.name}: ${reason}`);
        set(i, { state: 'error', message: reason });
      }
    }
    setUploading(false);
    if (ok > 0) toast.success(`${ok} receipt(s) uploaded successfully`);
    // Each failed file by name with the server's reason (a fake .jpg says why it was refused).
    if (failed.length > 0) toast.error(`Not uploaded: ${failed.join('; ')}`);
    setPage(1);
    await writes.refresh();
  };

  const onDrop = (accepted: File[], rejected: FileRejection[]) => {
    for (const r of rejected) {
      const tooBig = r.errors.some((e) => e.code === 'file-too-large');
      toast.error(`${r.file.name}: ${tooBig ? 'larger than 10MB' : 'only JPG, PNG and PDF files are accepted'}`);
    }
    if (accepted.length > 0) void uploadAll(accepted);
  };
  // The zone is a labelled region for the mouse; the keyboard uses the real button inside it.
  const { getRootProps, getInputProps, isDragActive, open } = useDropzone({
    onDrop,
    noKeyboard: true,
    multiple: true,
    disabled: uploading,
    maxSize: RECEIPT_MAX_BYTES,
    accept: { 'image/jpeg': ['.jpg', '.jpeg'], 'image/png': ['.png'], 'application/pdf': ['.pdf'] },
  });

  const download = async (r: Receipt) => {
    try {
      saveBlob(await writes.file(r.id, 'download'), r.original_filename);
      toast.success('Receipt downloaded successfully');
    } catch {
      toast.error('Error downloading receipt');
    }
  };
  const duplicateCheck = async (r: Receipt) => {
    try {
      const d = await writes.duplicates(r.id);
      if (d.isDuplicate) toast.warning(`Duplicate detected: ${d.duplicates.length} similar receipts found`);
      else toast.success('No duplicates found');
    } catch {
      toast.error('Error checking receipt duplicates');
    }
  };
  const remove = async (r: Receipt) => {
    if (!window.confirm('Are you sure you want to delete this receipt?')) return;
    try {
      await writes.remove.mutateAsync(r.id);
      toast.success('Receipt deleted successfully');
    } catch {
      toast.error('Error deleting receipt');
    }
  };

  const setDraftField = <K extends keyof ReceiptFilters>(k: K, v: ReceiptFilters[K]) => setDraft((d) => ({ ...d, [k]: v }));

  return (
    <section className="page">
      <div className="row spread">
        <div>
          <h1>Receipts</h1>
          <p className="muted">{isAdmin ? 'All company receipts' : 'Your receipts'}</p>
        </div>
        {isAdmin && <button type="button" className="btn" aria-expanded={showFilters} aria-controls="receipt-filters" onClick={() => setShowFilters((s) => !s)}>{showFilters ? 'Hide Filters' : 'Show Filters'}</button>}
      </div>

      {canWrite && <div {...getRootProps({ className: `dropzone card${isDragActive ? ' active' : ''}${uploading ? ' disabled' : ''}`, role: 'region', 'aria-label': 'Receipt drop zone' })}>
        <input {...getInputProps({ 'aria-label': 'Choose receipt files' })} data-testid="receipt-input" />
        <p>{isDragActive ? 'Drop the receipts here' : 'Drag and drop receipts here, or click to choose them'}</p>
        <p className="muted">JPG, PNG or PDF, up to 10MB each. Several at once is fine.</p>
        <button type="button" className="btn" disabled={uploading} onClick={(e) => { e.stopPropagation(); open(); }}>Choose receipts</button>
      </div>}
      {uploads.length > 0 && (
        <ul className="card upload-list" aria-label="Uploads">
          {uploads.map((u, i) => (
            <li key={`${u.name}-${i}`} data-state={u.state}>
              <span className="upload-name">{u.name}</span>
              <progress max={100} value={Math.round(u.progress * 100)} aria-label={`Upload of ${u.name}`} />
              <span className={u.state === 'error' ? 'field-error' : 'muted'}>{u.state === 'waiting' ? 'Waiting' : u.state === 'uploading' ? 'Uploading' : u.state === 'done' ? 'Uploaded' : 'Failed'}{u.message ? `: ${u.message}` : ''}</span>
            </li>
          ))}
        </ul>
      )}

      <SearchBox label="Search receipts" />
      {isAdmin && showFilters && (
        <form id="receipt-filters" className="card filters" aria-label="Receipt filters" onSubmit={(e) => { e.preventDefault(); setFilters(draft); setPage(1); }}>
          <label className="field"><span className="label">User</span>
            <select value={draft.userId} onChange={(e) => setDraftField('userId', e.target.value)}>
              <option value="">All users</option>
              {users.map((u) => <option key={u.id} value={u.id}>{u.fullName} ({u.role})</option>)}
            </select>
          </label>
          <label className="field"><span className="label">Start date</span><input type="date" value={draft.startDate} onChange={(e) => setDraftField('startDate', e.target.value)} /></label>
          <label className="field"><span className="label">End date</span><input type="date" value={draft.endDate} onChange={(e) => setDraftField('endDate', e.target.value)} /></label>
          <label className="field"><span className="label">Processing status</span>
            <select value={draft.processingStatus} onChange={(e) => setDraftField('processingStatus', e.target.value)}>
              <option value="">All</option><option value="pending">Pending</option><option value="processing">Processing</option><option value="completed">Completed</option><option value="failed">Failed</option>
            </select>
          </label>
          <label className="field"><span className="label">Min amount</span><input type="number" step="0.01" value={draft.minAmount} onChange={(e) => setDraftField('minAmount', e.target.value)} /></label>
          <label className="field"><span className="label">Max amount</span><input type="number" step="0.01" value={draft.maxAmount} onChange={(e) => setDraftField('maxAmount', e.target.value)} /></label>
          <label className="field"><span className="label">Match status</span>
            <select value={draft.status} onChange={(e) => setDraftField('status', e.target.value)}>
              <option value="">All</option><option value="matched">Matched</option><option value="unmatched">Unmatched</option>
            </select>
          </label>
          <label className="field"><span className="label">Sort by</span>
            <select value={draft.sortBy} onChange={(e) => setDraftField('sortBy', e.target.value)}>{SORTS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}</select>
          </label>
          <label className="field"><span className="label">Sort order</span>
            <select value={draft.sortOrder} onChange={(e) => setDraftField('sortOrder', e.target.value as 'asc' | 'desc')}><option value="desc">Descending</option><option value="asc">Ascending</option></select>
          </label>
          <div className="row">
            <button type="submit" className="btn primary">Apply</button>
            <button type="button" className="btn" onClick={() => { setDraft(DEFAULT_RECEIPT_FILTERS); setFilters(DEFAULT_RECEIPT_FILTERS); setPage(1); }}>Clear</button>
          </div>
        </form>
      )}

      {!data ? <Spinner label="Loading receipts..." /> : data.rows.length === 0 ? (
        <div className="card empty" role="status"><p>{q.trim() ? `No receipts match "${q.trim()}".` : 'No receipts found.'}</p></div>
      ) : (
        <div className="table-scroll">
          <table className="table dense" aria-label="Receipts">
            <thead>
              <tr><th>File</th><th>Uploaded</th><th>Date</th><th>Amount</th><th>Merchant</th><th>Description</th><th>Size</th><th>Processing</th><th>Match</th>{isAdmin && <th>Created By</th>}<th>Actions</th></tr>
            </thead>
            <tbody>
              {data.rows.map((r) => (
                <tr key={r.id} data-testid={`receipt-${r.original_filename}`}>
                  <td>{r.original_filename}{r.duplicate_of && <span className="badge warning" title="The same file was uploaded before"> duplicate</span>}</td>
                  <td className="nowrap">{new Date(r.upload_date).toLocaleDateString()}</td>
                  <td className="nowrap">{r.extracted_date ?? ''}</td>
                  <td className="num">{formatUsd(r.extracted_amount)}</td>
                  <td>{r.extracted_merchant ?? ''}</td>
                  <td>{r.extracted_description ?? ''}</td>
                  <td>{formatFileSize(r.file_size)}</td>
                  <td><span className={`badge ${STATUS_BADGE[r.processing_status] ?? 'danger'}`} data-testid="processing-status" title={r.failure_reason ?? undefined}>{r.processing_status}</span></td>
                  <td><span className={`badge ${r.match_count > 0 ? 'success' : 'warning'}`}>{r.match_count > 0 ? 'Matched' : 'Unmatched'}</span></td>
                  {isAdmin && <td>{[r.created_by_first_name, r.created_by_last_name].filter(Boolean).join(' ')}</td>}
                  <td className="actions">
                    <button type="button" className="btn small" aria-label={`View ${r.original_filename}`} onClick={() => setOpenId(r.id)}>View</button>
                    {rowActions?.(r)}
                    <button type="button" className="btn small" aria-label={`Download ${r.original_filename}`} onClick={() => download(r)}>Download</button>
                    <button type="button" className="btn small" aria-label={`Duplicate check ${r.original_filename}`} onClick={() => duplicateCheck(r)}>Duplicate Check</button>
                    {canWrite && <button type="button" className="btn danger small" aria-label={`Delete ${r.original_filename}`} onClick={() => remove(r)}>Delete</button>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pagination page={page} pages={data.pages} total={data.total} onPage={setPage} />}
      {openId && <ReceiptDetails id={openId} onClose={() => setOpenId(null)} />}
    </section>
  );
}
export default ReceiptsPage;
