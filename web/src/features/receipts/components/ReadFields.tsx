import { useEffect, useRef } from 'react';
import type { Receipt } from '../api/receipts';

/**
 * The server's mark for a confident field (domain/src/receipts/learned/model.ts CONFIDENT_AT):
 * at or above it a field was right at least 97 % of the time on the dev receipts.
 */
export const CONFIDENT_AT = 0.95;

export type FieldKey = 'date' | 'amount' | 'merchant' | 'description';

export interface ReadField {
  key: FieldKey;
  label: string;
  /** The key the server uses for confidences, corrections and boxes. */
  serverKey: 'date' | 'totalCents' | 'merchant' | 'description';
  confidence: number | null;
  corrected: boolean;
  /** Not read, or read below the confident mark, and nobody corrected it: a person should look. */
  doubtful: boolean;
  /** Where it was read on the page: fractions [x0, y0, x1, y1]. */
  box: [number, number, number, number] | null;
}

const FIELDS: ReadonlyArray<Pick<ReadField, 'key' | 'label' | 'serverKey'>> = [
  { key: 'date', label: 'Date', serverKey: 'date' },
  { key: 'amount', label: 'Total', serverKey: 'totalCents' },
  { key: 'merchant', label: 'Merchant', serverKey: 'merchant' },
  { key: 'description', label: 'Description', serverKey: 'description' },
];

const VALUE_OF: Record<FieldKey, (r: Receipt) => unknown> = {
  date: (r) => r.extracted_date,
  amount: (r) => r.extracted_amount,
  merchant: (r) => r.extracted_merchant,
  description: (r) => r.extracted_description,
};

/**
 * The fields of a read receipt, doubtful ones first (missing, then least sure), then the others in
 * their usual order. The description is a summary, never flagged: only the matching fields
 * (date, total, merchant) are.
 */
export function readFields(r: Receipt): ReadField[] {
  const read = r.processing_status === 'completed';
  const fields = FIELDS.map((f, order) => {
    const corrected = (r.corrected_fields ?? []).includes(f.serverKey);
    const confidence = r.field_confidence?.[f.serverKey] ?? null;
    const missing = VALUE_OF[f.key](r) === null;
    const doubtful = read && f.key !== 'description' && !corrected && (missing || confidence === null || confidence < CONFIDENT_AT);
    const box = corrected ? null : r.field_boxes?.[f.serverKey] ?? null;
    // A field not read comes before any read one.
    return { field: { ...f, confidence, corrected, doubtful, box }, order, sureness: missing ? -1 : confidence ?? -1 };
  });
  return fields.sort((a, b) => Number(b.field.doubtful) - Number(a.field.doubtful)
    || (a.field.doubtful ? a.sureness - b.sureness : 0)
    || a.order - b.order).map((f) => f.field);
}

/** The page image with the boxes of the fields outlined; the active field's box stands out. */
export function OutlinedPreview({ file, alt, fields, active }: { file: Blob; alt: string; fields: readonly ReadField[]; active: FieldKey | null }) {
  const img = useRef<HTMLImageElement>(null);
  // The file is shown through an object URL that lives exactly as long as the picture does.
  useEffect(() => {
    const url = URL.createObjectURL(file);
    if (img.current) img.current.src = url;
    return () => URL.revokeObjectURL(url);
  }, [file]);
  return (
    <div className="outlined-preview">
      <img ref={img} alt={alt} />
      {fields.filter((f) => f.box).map((f) => {
        const [x0, y0, x1, y1] = f.box!;
        return (
          <div
            key={f.key}
            className={`read-box${f.doubtful ? ' doubtful' : ''}${active === f.key ? ' active' : ''}`}
            data-testid={`box-${f.key}`}
            title={`${f.label} read here`}
            style={{ left: `${x0 * 100}%`, top: `${y0 * 100}%`, width: `${(x1 - x0) * 100}%`, height: `${(y1 - y0) * 100}%` }}
          >
            <span className="read-box-label">{f.label}</span>
          </div>
        );
      })}
    </div>
  );
}
