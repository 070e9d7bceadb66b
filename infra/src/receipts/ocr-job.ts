import { companyDateOrder, receiptDecider, type BlobStore, type DateOrder, type DateOrderSetting, type DatePeriod, type ExtractOptions, type Job, type JobHandler, type ReceiptEvent, type RecordedEvent, type RequestContext } from '@paperlink/domain';
import { planReceipt, type CommandBus } from '@paperlink/command-api';

export const OCR_JOB = 'receipt.ocr';

/** What reading a receipt file gives: text, fields with confidences, where the text came from (as `ReceiptRead` keeps it). */
export type ReceiptReading = Omit<Extract<ReceiptEvent, { type: 'ReceiptRead' }>['data'], 'receiptId' | 'companyId' | 'run'>;

export interface ReceiptReader {
  /** `options`: hints for the extraction (the date order: company setting, merchant history), passed as data to the worker. */
  read(bytes: Buffer, options?: ExtractOptions): Promise<ReceiptReading>;
}

export interface OcrPayload {
  receiptId: string;
  run: number;
  sha256: string;
}

/**
 * The extraction hints for a company's receipts: its `dateOrder` setting and the orders its
 * merchants' earlier receipts proved (`merchantDateOrdersOf`, kept by a projection).
 */
export function dateOrderOptions(setting: DateOrderSetting, merchants: Readonly<Record<string, DateOrder>>): ExtractOptions {
  const company = companyDateOrder(setting);
  return { ...(company ? { monthFirst: company === 'month-first' } : {}), ...(Object.keys(merchants).length > 0 ? { merchantDateOrders: merchants } : {}) };
}

/**
 * The extraction hints with the company's period (its lines' first and last posting day), when it
 * has lines, and the day after today (a receipt is never dated in the future; a day of slack for
 * time zones).
 */
export function withDateBounds(options: ExtractOptions, period: DatePeriod | undefined, now = new Date()): ExtractOptions {
  const notAfter = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
  return { ...options, ...(period ? { period } : {}), notAfter };
}

export const NO_TEXT = 'No text was found in this file. Check that it is a receipt, or upload a clearer scan.';

/** Raw text kept in the event, at most this long. */
const MAX_TEXT = 20_000;

/** Jobs from receipt events: each upload and each re-read request starts one OCR run. */
export function ocrJobsFrom(event: RecordedEvent): Job<OcrPayload>[] {
  const e = event as unknown as ReceiptEvent;
  const job = (receiptId: string, companyId: string, run: number, sha256: string): Job<OcrPayload> => ({
    id: `ocr-${receiptId}-${run}`,
    type: OCR_JOB,
    companyId,
    payload: { receiptId, run, sha256 },
    causationId: event.id,
    correlationId: event.metadata.correlationId ?? event.id,
    attempt: 1,
  });
  if (e.type === 'ReceiptUploaded') return [job(e.data.receiptId, e.data.companyId, 0, e.data.sha256)];
  // A re-read finds the file's hash in the receipt's first event.
  if (e.type === 'ReceiptReprocessRequested') return [job(e.data.receiptId, e.data.companyId, e.data.run, '')];
  return [];
}

/**
 * The OCR job: mark the run as processing, read the file, record the result. Every step is a
 * command on the receipt's stream; the decider ignores results of stale runs and repeats, so
 * a job that runs again after a crash records its result once.
 */
export function ocrJobHandler(deps: {
  bus: CommandBus;
  blobs: BlobStore;
  reader: ReceiptReader;
  /** The company's date-order hints (its `dateOrder` setting, its merchants' proven orders), read before each dispatch. */
  extractOptions?: (companyId: string) => Promise<ExtractOptions>;
  /**
   * Makes and keeps the file's print copy for PDF reports (ADR 0018), beside the read, off the
   * request thread; a failure is logged, never the read's (a report then makes the copy).
   */
  printCopy?: (sha256: string, bytes: Buffer) => Promise<void>;
  log?: (msg: string) => void;
}): JobHandler<OcrPayload> {
  const { bus } = deps;
  const ctxFor = (job: Job<OcrPayload>, step: string): RequestContext => ({
    requestId: `${job.id}-${step}-${job.attempt}`,
    correlationId: job.correlationId,
    companyId: job.companyId,
    userId: 'system:ocr',
    now: new Date(),
  });
  const shaOf = async (job: Job<OcrPayload>): Promise<string> => {
    if (job.payload.sha256) return job.payload.sha256;
    const [first] = await bus.events.readStream(`receipt-${job.payload.receiptId}`, { maxCount: 1 });
    return (first?.data as { sha256?: string } | undefined)?.sha256 ?? '';
  };
  return {
    async run(job) {
      const { receiptId, run } = job.payload;
      // A replayed job whose run is already settled (or superseded, or whose receipt is gone) has nothing to do.
      const { state } = await bus.load(`receipt-${receiptId}`, receiptDecider);
      if (!state.exists || state.deleted || state.run !== run || state.status === 'completed' || state.status === 'failed') return;
      await bus.run(ctxFor(job, 'start'), () => planReceipt(bus, receiptId, job.companyId, () => ({ type: 'StartProcessing', run, attempt: job.attempt }), () => ({})));
      const sha256 = await shaOf(job);
      const bytes = sha256 ? await deps.blobs.get(sha256) : null;
      if (!bytes) throw new Error('The receipt file is missing from storage');
      // The print copy is made beside the read (in another pool worker), kept before the result is recorded.
      const copying = deps.printCopy?.(sha256, bytes).catch((error: unknown) => {
        deps.log?.(`print copy of receipt ${receiptId} not made: ${error instanceof Error ? error.message : String(error)}`);
      });
      try {
        const r = await deps.reader.read(bytes, deps.extractOptions ? await deps.extractOptions(job.companyId) : undefined);
        await copying;
        if (r.text.trim() === '') {
          // Nothing to read is an answer, not a fault: no retries, the person sees why at once.
          await bus.run(ctxFor(job, 'failed'), () =>
            planReceipt(bus, receiptId, job.companyId, () => ({ type: 'RecordReadFailure', run, reason: NO_TEXT, attempts: job.attempt }), () => ({})),
          );
          return;
        }
        await bus.run(ctxFor(job, 'read'), () =>
          planReceipt(bus, receiptId, job.companyId, () => ({
            type: 'RecordRead',
            result: { run, source: r.source, text: r.text.slice(0, MAX_TEXT), fields: r.fields, confidence: r.confidence, ...(r.boxes ? { boxes: r.boxes } : {}), ...(r.dateOrder ? { dateOrder: r.dateOrder } : {}), ocrConfidence: Math.round(r.ocrConfidence * 10) / 10, ms: Math.round(r.ms) },
          }), () => ({})),
        );
      } finally {
        await copying;
      }
    },
    async onFailed(job, error) {
      const reason = error instanceof Error ? error.message : String(error);
      deps.log?.(`OCR of receipt ${job.payload.receiptId} failed: ${reason}`);
      await bus.run(ctxFor(job, 'failed'), () =>
        planReceipt(bus, job.payload.receiptId, job.companyId, () => ({ type: 'RecordReadFailure', run: job.payload.run, reason: `Could not read the receipt: ${reason}`.slice(0, 500), attempts: job.attempt }), () => ({})),
      );
    },
  };
}
