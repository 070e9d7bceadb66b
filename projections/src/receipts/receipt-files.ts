import type { Doc, ReadStore, RecordedEvent } from '@paperlink/domain';
import type { Projection } from '../core/projection';

/**
 * Receipt files that a receipt has ever referred to, by their SHA-256. A deleted receipt keeps
 * its entry: its file is part of the expense history that auditors replay, so only bytes that
 * never became a receipt (a crash between storing and recording, an upload never committed)
 * count as orphans.
 */
export const RECEIPT_FILES = 'receipt_files';

export interface ReceiptFileDoc extends Doc {
  /** The file's SHA-256 (the blob key). */
  _id: string;
  /** How many receipts were ever recorded with these bytes, in any company. */
  receipts: number;
  first_recorded_at: string;
}

export const receiptFilesProjection: Projection = {
  name: 'receipt-files',
  version: 1,
  collections: { [RECEIPT_FILES]: [] },
  handles: new Set(['ReceiptUploaded']),
  async apply(event: RecordedEvent, view) {
    const { sha256 } = event.data as { sha256: string };
    await view.update<ReceiptFileDoc>(RECEIPT_FILES, sha256, (d) =>
      d ? { ...d, receipts: d.receipts + 1 } : { _id: sha256, receipts: 1, first_recorded_at: event.metadata.occurredAt },
    );
  },
};

/** Which of these file keys a receipt has ever referred to. */
export async function referencedReceiptFiles(store: ReadStore, keys: string[]): Promise<Set<string>> {
  const found = await store.getMany(RECEIPT_FILES, keys);
  return new Set(keys.filter((k) => found.has(k)));
}
