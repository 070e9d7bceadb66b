import { useRef, useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { Spinner } from '../../../components/Spinner';
import { Tabs } from '../../../components/Tabs';
import { useSession } from '../../../lib/session';
import { roles } from '../../../lib/roles';
import type { MasterImportResult, MasterItem, MasterKind } from '../../../lib/masterdata-api';
import { useMasterList } from '../../../lib/masterdata-queries';
import { useErrorToast } from '../../../lib/query-scope';
import { useMasterWrites } from '../api/queries';
import { deletePrompt, importFileProblem, importOutcome, LIST_LABEL, nameProblem } from '../rules';

const TABS: Array<[MasterKind, string]> = [
  ['categories', 'Categories'],
  ['job_numbers', 'Job Numbers'],
  ['cost_codes', 'Cost Codes'],
];

/**
 * Spec section 2, /master-data-settings: admin only; three tabs with import, add and an editable
 * list. An auditor reads the lists, without import, add, edit or delete.
 */
export function MasterDataPage() {
  const role = useSession((s) => s.role());
  const [tab, setTab] = useState<MasterKind>('categories');
  if (!roles.seesWholeCompany(role)) {
    return (
      <section className="page">
        <h1>Master Data Settings</h1>
        <div className="form-error" role="alert">Access denied. Admin privileges required.</div>
      </section>
    );
  }
  return (
    <section className="page">
      <h1>Master Data Settings</h1>
      <Tabs<MasterKind> label="Master data lists" active={tab} onChange={setTab} tabs={TABS} />
      <MasterList key={tab} kind={tab} canWrite={roles.canWrite(role)} />
    </section>
  );
}

const NONE: MasterItem[] = [];

function MasterList({ kind, canWrite }: { kind: MasterKind; canWrite: boolean }) {
  const label = LIST_LABEL[kind];
  const list = useMasterList(kind);
  const categoryList = useMasterList('categories', kind === 'cost_codes');
  useErrorToast(list.isError ? list : categoryList, `Failed to fetch ${label.plural}.`);
  const items: MasterItem[] | null = list.data ?? (list.isError ? [] : null);
  const categories = (kind === 'cost_codes' && categoryList.data) || NONE;
  const writes = useMasterWrites(kind);
  const [name, setName] = useState('');
  const [categoryId, setCategoryId] = useState('');
  const [addError, setAddError] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ id: string; name: string; categoryId: string } | null>(null);
  const [editError, setEditError] = useState<string | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [result, setResult] = useState<MasterImportResult | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const problem = nameProblem(name) ?? (kind === 'cost_codes' && !categoryId ? 'Please choose a category.' : null);
    setAddError(problem);
    if (problem) return;
    try {
      await writes.add.mutateAsync({ name: name.trim(), categoryId: kind === 'cost_codes' ? categoryId : undefined });
      toast.success(`Added ${label.singular} "${name.trim()}"`);
      setName('');
    } catch (err) {
      toast.error(errorMessage(err, `Failed to add ${label.singular}.`));
    }
  };

  const save = async () => {
    if (!editing) return;
    const problem = nameProblem(editing.name);
    setEditError(problem);
    if (problem) return;
    try {
      await writes.update.mutateAsync({ id: editing.id, name: editing.name.trim(), categoryId: kind === 'cost_codes' ? editing.categoryId : undefined });
      toast.success(`Updated ${label.singular} "${editing.name.trim()}"`);
      setEditing(null);
    } catch (err) {
      toast.error(errorMessage(err, `Failed to update ${label.singular}.`));
    }
  };

  const remove = async (item: MasterItem) => {
    if (!window.confirm(deletePrompt(item.name))) return;
    try {
      await writes.remove.mutateAsync(item.id);
      toast.success(`Deleted ${label.singular} "${item.name}"`);
    } catch (err) {
      toast.error(errorMessage(err, `Failed to delete ${label.singular}.`));
    }
  };

  const runImport = async (e: FormEvent) => {
    e.preventDefault();
    const problem = importFileProblem(file);
    setImportError(problem);
    if (problem || !file) return;
    setImporting(true);
    try {
      const r = await writes.importCsv.mutateAsync(file);
      setResult(r);
      const outcome = importOutcome(r, kind);
      toast[outcome.level](outcome.text);
      setFile(null);
      if (fileInput.current) fileInput.current.value = '';
    } catch (err) {
      toast.error(errorMessage(err, `Failed to import ${label.plural}.`));
    } finally {
      setImporting(false);
    }
  };

  return (
    <div role="tabpanel" aria-label={label.plural}>
      {canWrite && <form className="card" onSubmit={runImport} noValidate aria-label={`Import ${label.plural}`}>
        <h2>Import {label.plural} from CSV</h2>
        <p className="muted">
          {kind === 'cost_codes'
            ? 'Columns: Name (or Cost Code) and Category. Missing categories are created.'
            : `One ${label.singular} per row in a Name column (${kind === 'categories' ? 'Category' : 'Job Number'} or Item also work). At most 5MB.`}
        </p>
        <div className="row">
          <input ref={fileInput} type="file" accept=".csv,text/csv" aria-label={`CSV file of ${label.plural}`} onChange={(e) => { setFile(e.target.files?.[0] ?? null); setImportError(null); }} />
          <button type="submit" className="btn" disabled={importing}>{importing ? 'Importing...' : 'Import CSV'}</button>
        </div>
        {importError && <div className="field-error" role="alert">{importError}</div>}
        {result && (
          <div className="import-details" data-testid="master-import-result">
            <p>Imported {result.summary.imported}, skipped {result.summary.skipped}, errors {result.summary.errors}, of {result.summary.totalRows} rows.</p>
            {result.details.duplicates.length > 0 && (
              <details><summary>{result.details.duplicates.length} duplicate(s)</summary>
                <ul>{result.details.duplicates.map((d) => <li key={`d${d.row}`}>Row {d.row}: {d.name}: {d.reason}</li>)}</ul>
              </details>
            )}
            {result.details.errors.length > 0 && (
              <details open><summary>{result.details.errors.length} error(s)</summary>
                <ul>{result.details.errors.map((d) => <li key={`e${d.row}`}>Row {d.row}{d.name ? ` (${d.name})` : ''}: {d.error}</li>)}</ul>
              </details>
            )}
          </div>
        )}
      </form>}

      {canWrite && <form className="card row" onSubmit={add} noValidate aria-label={`Add ${label.singular}`}>
        <label className="field"><span className="label">New {label.singular}</span>
          <input value={name} onChange={(e) => { setName(e.target.value); setAddError(null); }} aria-invalid={!!addError} />
        </label>
        {kind === 'cost_codes' && (
          <label className="field"><span className="label">Category</span>
            <select value={categoryId} onChange={(e) => { setCategoryId(e.target.value); setAddError(null); }}>
              <option value="">Select category</option>
              {categories.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
            </select>
          </label>
        )}
        <button type="submit" className="btn primary">Add</button>
        {addError && <div className="field-error" role="alert">{addError}</div>}
      </form>}

      <div className="card">
        {!items ? <Spinner /> : items.length === 0 ? <p className="muted" role="status">No {label.plural} yet.</p> : (
          <table className="table" aria-label={`${label.plural} list`}>
            <thead><tr><th>Name</th>{kind === 'cost_codes' && <th>Category</th>}{canWrite && <th>Actions</th>}</tr></thead>
            <tbody>
              {items.map((item) => {
                const e = editing?.id === item.id ? editing : null;
                return (
                  <tr key={item.id}>
                    <td>{e ? <input aria-label="Name" value={e.name} onChange={(v) => setEditing({ ...e, name: v.target.value })} /> : item.name}
                      {e && editError && <div className="field-error" role="alert">{editError}</div>}</td>
                    {kind === 'cost_codes' && <td>{e ? (
                      <select aria-label="Category" value={e.categoryId} onChange={(v) => setEditing({ ...e, categoryId: v.target.value })}>
                        {categories.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
                      </select>
                    ) : item.category_name ?? ''}</td>}
                    {canWrite && <td className="actions">
                      {e ? (
                        <>
                          <button type="button" className="btn primary small" onClick={save}>Save</button>
                          <button type="button" className="btn small" onClick={() => { setEditing(null); setEditError(null); }}>Cancel</button>
                        </>
                      ) : (
                        <>
                          <button type="button" className="btn small" aria-label={`Edit ${item.name}`} onClick={() => { setEditError(null); setEditing({ id: item.id, name: item.name, categoryId: item.category_id ?? '' }); }}>Edit</button>
                          <button type="button" className="btn danger small" aria-label={`Delete ${item.name}`} onClick={() => remove(item)}>Delete</button>
                        </>
                      )}
                    </td>}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}
export default MasterDataPage;
