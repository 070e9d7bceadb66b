import type { ReactNode } from 'react';
import { GROUP_BY, PAGES_PER_RECEIPT, usesMatchedFilter, usesReceipts, type ExportFormat, type ExportSettings, type GroupBy, type PagesPerReceipt } from '../rules';

const GROUP_LABEL: Record<GroupBy, string> = { date: 'Date', merchant: 'Merchant', amount: 'Amount', status: 'Status' };
const pagesLabel = (p: PagesPerReceipt) => (p === 'all' ? 'All pages' : p === 1 ? '1 page' : `${p} pages`);
const grid = { display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(200px, 1fr))', gap: '0 16px' } as const;
const check = { display: 'flex', alignItems: 'center', gap: 8, margin: '6px 0' } as const;

interface Props {
  reportType: string | null;
  format: ExportFormat | null;
  settings: ExportSettings;
  isAdmin: boolean;
  onChange: (next: ExportSettings) => void;
}

/** Spec section 3, export settings: the options that apply to the chosen report type and format. */
export function ExportOptionsForm({ reportType, format, settings, isAdmin, onChange }: Props) {
  const set = <K extends keyof ExportSettings>(key: K, value: ExportSettings[K]) => onChange({ ...settings, [key]: value });
  const box = (key: 'includeMatched' | 'includeUnmatched' | 'includeOCRData' | 'includeAnalytics' | 'includeCharts' | 'includeSummary' | 'includeDetails', label: ReactNode) => (
    <label style={check}>
      <input type="checkbox" checked={settings[key]} onChange={(e) => set(key, e.target.checked)} />
      {label}
    </label>
  );
  const type = reportType ?? '';
  return (
    <div className="card" aria-labelledby="export-options-title" role="group">
      <h2 id="export-options-title">Options</h2>
      <div style={grid}>
        <div className="field">
          <label htmlFor="export-start">Start date</label>
          <input id="export-start" type="date" value={settings.startDate} max={settings.endDate || undefined} onChange={(e) => set('startDate', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="export-end">End date</label>
          <input id="export-end" type="date" value={settings.endDate} min={settings.startDate || undefined} onChange={(e) => set('endDate', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="export-title">Report title</label>
          <input id="export-title" type="text" maxLength={120} placeholder="Named after the report type and period" value={settings.title} onChange={(e) => set('title', e.target.value)} />
        </div>
        {usesReceipts(type) && (
          <div className="field">
            <label htmlFor="export-group">Group by</label>
            <select id="export-group" value={settings.groupBy} onChange={(e) => set('groupBy', e.target.value as GroupBy)}>
              {GROUP_BY.map((g) => <option key={g} value={g}>{GROUP_LABEL[g]}</option>)}
            </select>
          </div>
        )}
        {usesReceipts(type) && format === 'pdf' && (
          <div className="field">
            <label htmlFor="export-pages">Max pages per receipt</label>
            <select id="export-pages" value={String(settings.maxPagesPerReceipt)} onChange={(e) => set('maxPagesPerReceipt', e.target.value === 'all' ? 'all' : (Number(e.target.value) as PagesPerReceipt))}>
              {PAGES_PER_RECEIPT.map((p) => <option key={p} value={String(p)}>{pagesLabel(p)}</option>)}
            </select>
          </div>
        )}
      </div>
      <div style={grid}>
        {usesMatchedFilter(type) && (
          <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
            <legend className="label" style={{ fontWeight: 600 }}>Include</legend>
            {box('includeMatched', 'Matched')}
            {box('includeUnmatched', 'Unmatched')}
          </fieldset>
        )}
        {usesReceipts(type) && (
          <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
            <legend className="label" style={{ fontWeight: 600 }}>Receipts</legend>
            {box('includeOCRData', 'Include OCR data')}
          </fieldset>
        )}
        {isAdmin && (
          <fieldset style={{ border: 0, padding: 0, margin: 0 }} data-testid="content-options">
            <legend className="label" style={{ fontWeight: 600 }}>Content</legend>
            {box('includeSummary', 'Summary')}
            {box('includeDetails', 'Details')}
            {box('includeAnalytics', 'Analytics')}
            {box('includeCharts', 'Charts')}
          </fieldset>
        )}
      </div>
    </div>
  );
}
