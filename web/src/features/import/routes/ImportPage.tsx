import { useState } from 'react';
import { useDropzone, type FileRejection } from 'react-dropzone';
import { Link } from 'react-router-dom';
import { toast } from 'react-toastify';
import { toastImport } from '../../../lib/outcome-toasts';
import { errorMessage } from '../../../lib/api-client';
import { useCanWrite } from '../../../lib/roles';
import { useImportStatement } from '../api/queries';
import { mappingFromSuggestion, mappingProblem, MAPPING_FIELDS, type AmountSign, type DateOrderChoice, type ImportResult, type Mapping, type MappingField, type NeedsMapping } from '../api/import';

/** Import detail rows shown (spec section 9). */
export const DETAIL_ROWS = 20;

const STATUS_LABEL: Record<ImportResult['userMatching']['details'][number]['status'], string> = {
  name_matched: 'Name matched',
  no_match_found: 'No match found',
  no_names_provided: 'No names provided',
  error: 'Error',
};

const EXPECTED_COLUMNS: Array<[string, string, string]> = [
  ['Transaction Date', 'Required', 'YYYY-MM-DD, MM/DD/YYYY, DD/MM/YYYY, DD.MM.YYYY or a timestamp'],
  ['Description', 'Required', 'Merchant or payee as the bank prints it'],
  ['Amount', 'Required', 'Negative for an expense; or separate Debit and Credit columns'],
  ['Category', 'Optional', 'Cost code name'],
  ['Job Number', 'Optional', ''],
  ['Cost Code', 'Optional', ''],
  ['First Name / Last Name', 'Optional', 'Or a single Name column; assigns the row to that team member'],
];

type Phase = { kind: 'idle' } | { kind: 'uploading'; progress: number; name: string } | { kind: 'processing'; name: string } | { kind: 'mapping'; file: File; needs: NeedsMapping } | { kind: 'done'; result: ImportResult };

/** Spec section 2, /import: drop zone, progress, result cards, user assignment, expected columns. */
export function ImportPage() {
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const canWrite = useCanWrite();
  const importStatement = useImportStatement();

  const run = async (file: File, mapping?: Mapping) => {
    setError(null);
    setPhase({ kind: 'uploading', progress: 0, name: file.name });
    try {
      const onProgress = (p: number) => setPhase(p >= 1 ? { kind: 'processing', name: file.name } : { kind: 'uploading', progress: p, name: file.name });
      const outcome = await importStatement.mutateAsync({ file, onProgress, mapping });
      if (outcome.kind === 'mapping') {
        setPhase({ kind: 'mapping', file, needs: outcome.needs });
        return;
      }
      setPhase({ kind: 'done', result: outcome.result });
      toastImport(outcome.result.imported, outcome.result.alreadyImported === true);
    } catch (e) {
      setPhase({ kind: 'idle' });
      // The server's reason and the file's name, in the page and in the toast.
      const reason = `${file.name}: ${errorMessage(e, 'Error importing transactions')}`;
      setError(reason);
      toast.error(reason);
    }
  };

  const onDrop = (accepted: File[], rejected: FileRejection[]) => {
    const file = accepted[0] ?? rejected[0]?.file;
    if (!file) return;
    if (rejected.length + accepted.length > 1) {
      setError('Import one file at a time.');
      return;
    }
    if (!/\.csv$/i.test(file.name)) {
      setError('Please select a CSV file');
      return;
    }
    void run(file);
  };

  const busy = phase.kind === 'uploading' || phase.kind === 'processing';
  // The zone is a labelled region for the mouse; the keyboard uses the real button inside it.
  const { getRootProps, getInputProps, isDragActive, open } = useDropzone({ onDrop, noKeyboard: true, multiple: false, disabled: busy || !canWrite, accept: { 'text/csv': ['.csv'], 'application/vnd.ms-excel': ['.csv'], 'text/plain': ['.csv'] } });

  // An auditor imports nothing: the page says so instead of offering a drop zone.
  if (!canWrite) {
    return (
      <section className="page">
        <h1>Import Transactions</h1>
        <p data-testid="import-read-only">Importing a statement changes the company&apos;s records, which an auditor cannot do. The imported transactions are on <Link to="/transactions">Transactions</Link>, each with its history.</p>
      </section>
    );
  }

  return (
    <section className="page">
      <h1>Import Transactions</h1>
      <p className="muted">Import a card or bank statement exported as CSV. Exports from Chase, American Express, Capital One, Bank of America, Wells Fargo, Barclays, Revolut, Monzo and most European banks are recognised as they are.</p>

      {phase.kind !== 'done' && phase.kind !== 'mapping' && (
        <div {...getRootProps({ className: `dropzone card${isDragActive ? ' active' : ''}${busy ? ' disabled' : ''}`, role: 'region', 'aria-label': 'CSV file drop zone' })}>
          <input {...getInputProps({ 'aria-label': 'Choose a CSV file' })} data-testid="csv-input" />
          {phase.kind === 'idle' && <p>{isDragActive ? 'Drop the CSV file here' : 'Drag and drop a CSV file here, or click to choose one'}</p>}
          {phase.kind === 'idle' && <button type="button" className="btn" onClick={(e) => { e.stopPropagation(); open(); }}>Choose a CSV file</button>}
          {phase.kind === 'uploading' && (
            <div role="status" aria-live="polite">
              <p>Uploading {phase.name}…</p>
              <progress max={100} value={Math.round(phase.progress * 100)} aria-label="Upload progress" />
            </div>
          )}
          {phase.kind === 'processing' && (
            <div role="status" aria-live="polite">
              <p>Processing {phase.name}: reading rows, skipping duplicates, assigning team members…</p>
              <progress aria-label="Processing" />
            </div>
          )}
        </div>
      )}
      {error && <div className="form-error" role="alert">{error}</div>}

      {phase.kind === 'mapping' && <MappingForm file={phase.file} needs={phase.needs} onCancel={() => setPhase({ kind: 'idle' })} onSubmit={(m) => run(phase.file, m)} />}
      {phase.kind === 'done' && <ImportSummary result={phase.result} onAgain={() => setPhase({ kind: 'idle' })} />}

      <div className="card">
        <h2>Expected columns</h2>
        <table className="table">
          <thead><tr><th>Column</th><th>Required</th><th>Notes</th></tr></thead>
          <tbody>{EXPECTED_COLUMNS.map(([c, r, n]) => <tr key={c}><td>{c}</td><td>{r}</td><td className="muted">{n}</td></tr>)}</tbody>
        </table>
        <p className="muted">Rows with the same date, description and amount as a transaction already in the company, or earlier in the file, are skipped as duplicates. Importing the same file again adds nothing.</p>
      </div>
    </section>
  );
}

function ImportSummary({ result, onAgain }: { result: ImportResult; onAgain: () => void }) {
  const um = result.userMatching;
  return (
    <div className="card" data-testid="import-result">
      {result.alreadyImported && <p className="form-error" role="status">This file was imported before; nothing new was added.</p>}
      <div className="stat-cards">
        <div className="stat"><span className="stat-value" data-testid="imported-count">{result.imported}</span><span className="muted">Imported</span></div>
        <div className="stat"><span className="stat-value" data-testid="skipped-count">{result.skipped}</span><span className="muted">Skipped duplicates</span></div>
        <div className="stat"><span className="stat-value" data-testid="total-count">{result.total}</span><span className="muted">Total processed</span></div>
      </div>
      {(result.rowErrors?.length ?? 0) > 0 && (
        <details>
          <summary>{result.rowErrors!.length} row(s) could not be read and were not imported</summary>
          <ul>{result.rowErrors!.slice(0, 50).map((r) => <li key={r.row}>Row {r.row}: {r.reason}</li>)}</ul>
        </details>
      )}
      <h2>User assignment</h2>
      <div className="stat-cards">
        <div className="stat"><span className="stat-value">{um.matched}</span><span className="muted">Matched</span></div>
        <div className="stat"><span className="stat-value">{um.unmatched}</span><span className="muted">No match</span></div>
        <div className="stat"><span className="stat-value">{um.adminAssigned}</span><span className="muted">Assigned to admin</span></div>
      </div>
      {um.details.length > 0 && (
        <table className="table" aria-label="User assignment details">
          <thead><tr><th>Row</th><th>Description</th><th>Provided name</th><th>Assigned to</th><th>Status</th></tr></thead>
          <tbody>
            {um.details.slice(0, DETAIL_ROWS).map((d) => (
              <tr key={d.row}><td>{d.row}</td><td>{d.description}</td><td>{d.providedName ?? '—'}</td><td>{d.assignedToName ?? d.assignedTo}</td><td>{STATUS_LABEL[d.status]}</td></tr>
            ))}
          </tbody>
        </table>
      )}
      {um.details.length > DETAIL_ROWS && <p className="muted">Showing the first {DETAIL_ROWS} of {um.details.length} rows.</p>}
      <div className="row">
        <Link className="btn primary" to="/transactions">View Transactions</Link>
        <button type="button" className="btn" onClick={onAgain}>Import Another File</button>
      </div>
    </div>
  );
}

function MappingForm({ file, needs, onSubmit, onCancel }: { file: File; needs: NeedsMapping; onSubmit: (m: Mapping) => void; onCancel: () => void }) {
  const [mapping, setMapping] = useState<Mapping>(() => mappingFromSuggestion(needs.suggested));
  const [problem, setProblem] = useState<string | null>(null);
  const set = (field: MappingField, value: string) => {
    setProblem(null);
    setMapping((m) => {
      const next = { ...m };
      if (value === '') delete next[field];
      else next[field] = Number(value);
      return next;
    });
  };
  return (
    <form className="card" aria-label="Column mapping" onSubmit={(e) => { e.preventDefault(); const p = mappingProblem(mapping); setProblem(p); if (!p) onSubmit(mapping); }}>
      <h2>Which column is which?</h2>
      <p className="muted">We could not recognise the columns of <strong>{file.name}</strong>. Tell us once; the mapping is remembered for the next file with the same header.</p>
      <div className="mapping-grid">
        {MAPPING_FIELDS.map(([field, label, required]) => (
          <label key={field} className="field">
            <span className="label">{label}{required ? ' *' : ''}</span>
            <select aria-label={label} value={mapping[field] ?? ''} onChange={(e) => set(field, e.target.value)}>
              <option value="">— not in this file —</option>
              {needs.header.map((h, i) => <option key={i} value={i}>{h || `Column ${i + 1}`}</option>)}
            </select>
          </label>
        ))}
        <label className="field">
          <span className="label">Dates are written</span>
          <select value={mapping.dateOrder} onChange={(e) => setMapping((m) => ({ ...m, dateOrder: e.target.value as DateOrderChoice }))}>
            <option value="auto">Detect from the whole file</option>
            <option value="dmy">Day first (31/01/2024)</option>
            <option value="mdy">Month first (01/31/2024)</option>
          </select>
        </label>
        <label className="field">
          <span className="label">Expenses are</span>
          <select value={mapping.amountSign} onChange={(e) => setMapping((m) => ({ ...m, amountSign: e.target.value as AmountSign }))}>
            <option value="expense-negative">Negative amounts (-12.50)</option>
            <option value="expense-positive">Positive amounts (12.50)</option>
          </select>
        </label>
      </div>
      {problem && <div className="form-error" role="alert">{problem}</div>}
      <h3>Preview</h3>
      <div className="table-scroll">
        <table className="table" aria-label="File preview">
          <thead><tr>{needs.header.map((h, i) => <th key={i}>{h || `Column ${i + 1}`}{Object.entries(mapping).filter(([, c]) => c === i).map(([f]) => <span key={f} className="badge">{MAPPING_FIELDS.find((x) => x[0] === f)?.[1]}</span>)}</th>)}</tr></thead>
          <tbody>{needs.preview.map((r, i) => <tr key={i}>{needs.header.map((_, j) => <td key={j}>{r[j] ?? ''}</td>)}</tr>)}</tbody>
        </table>
      </div>
      <div className="row">
        <button type="submit" className="btn primary">Import with this mapping</button>
        <button type="button" className="btn" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
export default ImportPage;
