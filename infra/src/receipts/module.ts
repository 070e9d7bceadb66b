import { createHash } from 'node:crypto';
import { freshRead, receiptCommands, type ReceiptDeps } from '@paperlink/command-api';
import { PRINT_COPY } from '@paperlink/domain';
import { companyPeriod, getReceipt, merchantDateOrdersOf, receiptProjections, receiptsWithBytes, toReceiptViews } from '@paperlink/projections';
import { receiptQueries } from '@paperlink/query-api';
import type { Feature, JobRegistration, Kernel } from '../boot/feature';
import { reactions } from '../reactions';
import { dateOrderOptions, OCR_JOB, ocrJobHandler, withDateBounds } from './ocr-job';

const receiptDeps = (k: Kernel): ReceiptDeps => ({
  bus: k.bus,
  blobs: k.adapters.blobs,
  uploadSecret: createHash('sha256').update(`receipt-upload:${k.secret}`).digest(),
  checkPdf: (bytes: Buffer) => k.cpu.checkPdf(bytes),
  // Decisions on read models (ADR 0023): read once they hold every earlier event, else 503.
  uploadLimit: freshRead(k.bus, async (companyId: string) => (await k.settingsOf(companyId)).maxFileSize, k.decisionPosition),
  sameBytes: freshRead(k.bus, async (companyId: string, sha256: string, scope: { userId?: string }) => (await receiptsWithBytes(k.readStore, companyId, sha256, scope))[0]?._id ?? null, k.decisionPosition),
  view: async (companyId: string, id: string, scope: { userId?: string } = {}) => {
    const doc = await getReceipt(k.readStore, companyId, id);
    return doc ? ((await toReceiptViews(k.readStore, [doc], scope))[0] as unknown as Record<string, unknown>) : null;
  },
});

/** Reading a receipt: its OCR, with the company's date order and period as hints, and its print copy. */
const ocrJob = (k: Kernel): JobRegistration => ({
  type: OCR_JOB,
  handler: ocrJobHandler({
    bus: k.bus,
    blobs: k.adapters.blobs,
    reader: k.reader,
    extractOptions: async (companyId) => withDateBounds(dateOrderOptions((await k.settingsOf(companyId)).dateOrder, await merchantDateOrdersOf(k.readStore, companyId)), await companyPeriod(k.readStore, companyId)),
    printCopy: async (sha256, bytes) => k.adapters.blobs.putDerived(sha256, PRINT_COPY, await k.cpu.printCopy(bytes)),
    log: (m) => console.warn(m),
  }) as JobRegistration['handler'],
  options: { concurrency: k.config.OCR_WORKERS, maxAttempts: 3, backoffMs: { base: 1000, max: 30_000 } },
});

/** Receipt files: uploads, OCR, corrections, their files and thumbnails. */
export const receipts: Feature = {
  feature: 'receipts',
  commands: receiptCommands,
  queries: receiptQueries,
  projections: receiptProjections,
  reactions: [reactions.receiptsOcr],
  wire: (k) => {
    const deps = receiptDeps(k);
    return {
      public: receiptCommands.publicRouters!(deps),
      routes: [...receiptQueries.routers!({ store: k.readStore, blobs: k.adapters.blobs, thumbnail: (bytes, kind) => k.cpu.thumbnail(bytes, kind) }), ...receiptCommands.routers(deps)],
      jobs: [ocrJob(k)],
    };
  },
};
