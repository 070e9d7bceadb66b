import { useEffect, useState } from 'react';
import { toast } from 'react-toastify';
import { Spinner } from '../../../components/Spinner';
import { useSession } from '../../../lib/session';
import { roles } from '../../../lib/roles';
import { saveFile } from '../api/exports';
import { useExportOptions, useGenerateReport, usePreview, useQuickAnalytics } from '../api/queries';
import { DataPreview, QuickAnalyticsCard } from '../components/DataPreview';
import { ExportOptionsForm } from '../components/ExportOptionsForm';
import { FormatPicker, ReportTypePicker } from '../components/ReportTypePicker';
import { DEFAULT_FORMAT, DEFAULT_REPORT_TYPE, DEFAULT_SETTINGS, exportErrorMessage, formatBytes, validateExport, type ExportFormat, type ExportSettings } from '../rules';

const TIPS = [
  'Pick a shorter date range for a faster report; a whole year of receipts with images makes a large PDF.',
  'Excel reports have one sheet per section with filters and totals, ready for your accountant.',
  'PDF reports print receipt images after their transaction; limit the pages per receipt to keep the file small.',
  'Unmatched transactions are the ones still missing a receipt: export them to chase the paperwork.',
];

type Busy = { kind: 'idle' } | { kind: 'generating'; format: ExportFormat; received: number };

/** Spec section 2, /exports: report type cards, format, options, tips; admins also preview and quick analytics. */
export function ExportsPage() {
  // Reports are reads: an auditor has the admin's (the whole company, preview, analytics).
  const isAdmin = useSession((s) => roles.seesWholeCompany(s.role()));
  const company = useSession((s) => s.currentCompanyId);
  const userId = useSession((s) => s.user?.id ?? null);
  const options = useExportOptions(company, userId);
  const analytics = useQuickAnalytics(company, userId, isAdmin);
  const preview = usePreview();
  const [busy, setBusy] = useState<Busy>({ kind: 'idle' });
  const report = useGenerateReport((received) => setBusy((b) => (b.kind === 'generating' ? { ...b, received } : b)));
  const [chosenType, setChosenType] = useState<string | null>(null);
  const [format, setFormat] = useState<ExportFormat | null>(DEFAULT_FORMAT);
  const [settings, setSettings] = useState<ExportSettings>(DEFAULT_SETTINGS);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  useEffect(() => {
    if (options.isError) toast.error('Failed to load export options');
  }, [options.isError, options.errorUpdatedAt]);
  const { reset: resetPreview } = preview;
  useEffect(() => resetPreview(), [company, resetPreview]);

  const types = options.data ?? [];
  // The chosen type while the server offers it, else the default (transactions), else the first.
  const reportType = (chosenType && types.some((t) => t.id === chosenType) ? chosenType : (types.find((t) => t.id === DEFAULT_REPORT_TYPE) ?? types[0])?.id) ?? null;

  const change = (next: ExportSettings) => {
    setSettings(next);
    setProblem(null);
    preview.reset();
  };
  const chooseType = (id: string) => {
    setChosenType(id);
    setProblem(null);
    preview.reset();
  };

  const runPreview = () => {
    const invalid = validateExport('preview', reportType, format, settings);
    setProblem(invalid);
    if (invalid || !reportType) return;
    preview.mutate({ reportType, format, settings }, { onError: () => toast.error('Failed to generate preview') });
  };

  const generate = async () => {
    const invalid = validateExport('generate', reportType, format, settings);
    setProblem(invalid);
    setDone(null);
    if (invalid || !reportType || !format) {
      if (invalid) toast.error(invalid);
      return;
    }
    setBusy({ kind: 'generating', format, received: 0 });
    try {
      const file = await report.mutateAsync({ format, reportType, settings });
      saveFile(file);
      setDone(`Downloaded ${file.filename} (${formatBytes(file.blob.size)})`);
      toast.success(`Report ready: ${file.filename}`);
    } catch (e) {
      const message = exportErrorMessage(e);
      setProblem(message);
      toast.error(message);
    } finally {
      setBusy({ kind: 'idle' });
    }
  };

  if (!company) return <section className="page"><h1>Export Reports</h1><p className="empty">Reports are made per company: join or create one first.</p></section>;
  if (options.isPending) return <section className="page"><h1>Export Reports</h1><Spinner label="Loading export options..." /></section>;
  if (options.isError) {
    return (
      <section className="page">
        <h1>Export Reports</h1>
        <div className="form-error" role="alert">Failed to load export options</div>
        <button type="button" className="btn" onClick={() => void options.refetch()}>Try again</button>
      </section>
    );
  }

  const generating = busy.kind === 'generating';
  const formatName = format === 'excel' ? 'Excel' : 'PDF';
  return (
    <section className="page">
      <h1>Export Reports</h1>
      <p className="muted">{isAdmin ? 'Reports cover all company data.' : 'Reports cover your own transactions and receipts.'}</p>

      <div className="card">
        <h2 id="report-type-title">Report type</h2>
        <ReportTypePicker types={types} value={reportType} onChange={chooseType} />
        <h2 id="format-title">Format</h2>
        <FormatPicker value={format} onChange={(f) => { setFormat(f); setProblem(null); preview.reset(); }} />
      </div>

      <ExportOptionsForm reportType={reportType} format={format} settings={settings} isAdmin={isAdmin} onChange={change} />

      {problem && <div className="form-error" role="alert" data-testid="export-problem">{problem}</div>}

      <div className="row" style={{ justifyContent: 'flex-start' }}>
        {isAdmin && (
          <button type="button" className="btn" style={{ flex: '0 0 auto' }} disabled={generating || preview.isPending} onClick={() => void runPreview()}>
            {preview.isPending ? 'Loading preview...' : 'Preview Data'}
          </button>
        )}
        <button type="button" className="btn primary" style={{ flex: '0 0 auto' }} disabled={generating} aria-describedby="export-progress" onClick={() => void generate()}>
          {generating ? `Generating ${formatName} report...` : `Generate ${formatName} Report`}
        </button>
      </div>

      <div id="export-progress" role="status" aria-live="polite" data-testid="export-status">
        {generating && (
          <div className="card">
            <p>Generating your {busy.format === 'excel' ? 'Excel' : 'PDF'} report{busy.received > 0 ? `: ${formatBytes(busy.received)} received` : '. Large reports can take a little while.'}</p>
            <progress aria-label="Report progress" style={{ width: '100%' }} />
          </div>
        )}
        {!generating && done && <p className="muted">{done}</p>}
      </div>

      {isAdmin && preview.data && <DataPreview preview={preview.data} />}
      {isAdmin && preview.isError && <div className="form-error" role="alert">Failed to generate preview</div>}
      {isAdmin && analytics.data && <QuickAnalyticsCard data={analytics.data} />}

      <div className="card">
        <h2>Tips</h2>
        <ul>{TIPS.map((t) => <li key={t}>{t}</li>)}</ul>
      </div>
    </section>
  );
}

export default ExportsPage;
