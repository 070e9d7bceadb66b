import type { ReportType } from '../api/exports';
import { describeDateRange, FORMATS, type ExportFormat } from '../rules';

const selected = { borderColor: '#2563eb', boxShadow: '0 0 0 2px #bfdbfe' } as const;
const line = { display: 'flex', alignItems: 'center', gap: 8 } as const;
const grid = { display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(220px, 1fr))', gap: 12, border: 0, padding: 0, margin: 0 } as const;

/**
 * Report type cards: native radios in one group, so a screen reader hears a radio group and
 * the arrow keys move the choice; the card is the radio's label.
 */
export function ReportTypePicker({ types, value, onChange }: { types: ReportType[]; value: string | null; onChange: (id: string) => void }) {
  return (
    <fieldset style={grid} role="radiogroup" aria-label="Report type">
      <legend className="sr-only">Report type</legend>
      {types.map((t) => {
        const range = describeDateRange(t.options?.dateRange);
        return (
          <label key={t.id} className="card" style={{ cursor: 'pointer', margin: 0, ...(value === t.id ? selected : {}) }} data-testid={`report-type-${t.id}`}>
            <span style={line}>
              <input type="radio" name="report-type" value={t.id} checked={value === t.id} onChange={() => onChange(t.id)} aria-labelledby={`rt-${t.id}-name`} aria-describedby={`rt-${t.id}-desc`} />
              <strong id={`rt-${t.id}-name`}>{t.name}</strong>
            </span>
            <span id={`rt-${t.id}-desc`} className="muted" style={{ display: 'block' }}>
              {t.description}
              {range && <span style={{ display: 'block' }}>Data from {range}</span>}
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}

const FORMAT_LABEL: Record<ExportFormat, string> = { pdf: 'PDF', excel: 'Excel' };
const FORMAT_HINT: Record<ExportFormat, string> = { pdf: 'Printable report with summary, grouped tables and receipt images', excel: 'Workbook with one sheet per section, ready to filter and sum' };

export function FormatPicker({ value, onChange }: { value: ExportFormat | null; onChange: (f: ExportFormat) => void }) {
  return (
    <fieldset style={grid} role="radiogroup" aria-label="Format">
      <legend className="sr-only">Format</legend>
      {FORMATS.map((f) => (
        <label key={f} className="card" style={{ cursor: 'pointer', margin: 0, ...(value === f ? selected : {}) }}>
          <span style={line}>
            <input type="radio" name="report-format" value={f} checked={value === f} onChange={() => onChange(f)} aria-labelledby={`fmt-${f}-name`} aria-describedby={`fmt-${f}-desc`} />
            <strong id={`fmt-${f}-name`}>{FORMAT_LABEL[f]}</strong>
          </span>
          <span id={`fmt-${f}-desc`} className="muted" style={{ display: 'block' }}>{FORMAT_HINT[f]}</span>
        </label>
      ))}
    </fieldset>
  );
}
