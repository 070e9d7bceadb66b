/**
 * The rows of a report, read from the read models a page at a time (cheap: no rendering here),
 * scoped like every other read: an admin's report covers the company; everyone else's only their
 * own transactions and receipts, and the matches both sides of which are theirs. The detail pass
 * comes in group order (the read store's sort), so the renderer closes a group when its key changes.
 */
import {
  compareForGroup, groupSort, PRINT_COPY, printCopyUse, type BlobStore, type Doc, type Filter, type ReadCollection, type ReadStore, type ReportAttachment, type ReportMatch, type ReportPass,
  type ReportReceipt, type ReportRow, type ReportSettings, type ReportSource, type ReportTransaction, type ReportType, type SortSpec,
} from '@paperlink/domain';
import {
  getUsers, MATCHES, RECEIPTS, receiptFilter, toMatchViews, transactionFilter, TRANSACTIONS, visibleMatches, type MatchDoc, type ReceiptDoc, type TransactionDoc, type UserDoc,
} from '@paperlink/projections';

export interface ExportScope {
  companyId: string;
  /** Set for a member who is not an admin: only their records. */
  userId?: string;
}

export interface SourceOptions {
  /** Receipt files travel with the detail rows (PDF). */
  attachments: boolean;
  /** Base of receipt links (Excel). */
  linkBase: string;
  /** Rows per page; smaller when files travel with them. */
  pageSize?: number;
  /** Read in the store's order even where the worker could order rows (previews: the first rows). */
  noWalk?: boolean;
}

/**
 * What a report's rows are, for a renderer that reads them itself (the SQLite read store: the
 * pool worker builds an ExportReader of its own from this, infra/src/reports/worker-rows.ts).
 */
export interface ReportRowsSpec {
  type: ReportType;
  scope: ExportScope;
  settings: ReportSettings;
  /** Receipt files travel with the detail rows (PDF). */
  attachments: boolean;
  linkBase: string;
}

type Part = 'transactions' | 'receipts' | 'matches';

interface MapsPages {
  mapPage<R>(filter: Filter, skip: number, limit: number, map: (doc: Doc) => R): Promise<R[]>;
}
/** Filters the embedded store answers from an index alone (no scan per page). */
const INDEXED = new Set(['companyId', 'userId']);

/**
 * A page of documents. The summary pass needs no order: where the store can shape a page of an
 * index straight from its documents (the embedded store's mapPage), a shallow copy is taken
 * instead of the deep copy findPage makes; otherwise (and for the ordered detail pass) findPage.
 */
async function readPage<T extends Doc>(coll: ReadCollection<T>, filter: Filter, sort: SortSpec, ordered: boolean, skip: number, limit: number): Promise<T[]> {
  const direct = (coll as unknown as Partial<MapsPages>).mapPage;
  if (!ordered && direct && Object.keys(filter).every((k) => INDEXED.has(k))) {
    return (await direct.call(coll, filter, skip, limit, (d) => ({ ...d }))) as T[];
  }
  // Other filters scan the collection: in the detail pass's order, whose sorted list the store keeps.
  return (await coll.findPage(filter, { sort, skip, limit })).docs;
}
const PARTS: Record<ReportType, Part[]> = { transactions: ['transactions'], receipts: ['receipts'], matches: ['matches'], analytics: ['transactions', 'receipts', 'matches'] };

const kindOf = (d: ReceiptDoc): ReportAttachment['kind'] => d.kind;

export class ExportReader {
  private readonly users = new Map<string, string>();
  constructor(
    private readonly store: ReadStore,
    private readonly blobs: BlobStore | null,
    private readonly type: ReportType,
    private readonly scope: ExportScope,
    private readonly settings: ReportSettings,
  ) {}

  /** Status filters apply to transactions and receipts, except in the analytics report (it counts everything). */
  get statusFilter(): 'matched' | 'unmatched' | undefined {
    if (this.type === 'analytics') return undefined;
    const s = this.settings;
    return s.includeMatched && !s.includeUnmatched ? 'matched' : !s.includeMatched && s.includeUnmatched ? 'unmatched' : undefined;
  }

  transactionFilter(): Filter {
    // For a member, "matched" means matched to one of their own receipts: that is checked per row.
    return transactionFilter({ companyId: this.scope.companyId, ...this.own(), ...this.dates(), ...(this.scope.userId ? {} : this.status()) });
  }

  receiptFilter(): Filter {
    return receiptFilter({ companyId: this.scope.companyId, ...this.own(), ...this.dates(), ...this.status() });
  }

  private own() {
    return this.scope.userId ? { userId: this.scope.userId } : {};
  }
  private dates() {
    return { ...(this.settings.startDate ? { startDate: this.settings.startDate } : {}), ...(this.settings.endDate ? { endDate: this.settings.endDate } : {}) };
  }
  private status() {
    const s = this.statusFilter;
    return s ? { status: s } : {};
  }

  parts(): Part[] {
    return PARTS[this.type];
  }

  private async names(ids: string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.users.has(id));
    if (missing.length === 0) return;
    const found = await getUsers(this.store, missing);
    for (const id of missing) {
      const u: UserDoc | undefined = found.get(id);
      this.users.set(id, u ? `${u.firstName} ${u.lastName}`.trim() : '');
    }
  }

  /**
   * The receipts' files for a PDF: the stored print copy (ADR 0018), and the original only where
   * the copy does not serve (none yet, too few pages, or "the file as it is").
   */
  private async files(docs: ReceiptDoc[], want: boolean): Promise<Map<string, ReportAttachment>> {
    const out = new Map<string, ReportAttachment>();
    if (!want) return out;
    const blobs = this.blobs;
    // Bytes of their own (a Buffer may be a slice of a shared pool): they are moved to the worker.
    const own = (b: Buffer) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? new Uint8Array(b.buffer) : new Uint8Array(b));
    await Promise.all(docs.map(async (d) => {
      // A copy that cannot be read is as good as none: the report makes the pages from the file.
      const print = blobs ? await blobs.getDerived(d.sha256, PRINT_COPY).catch(() => null) : null;
      const bytes = blobs && printCopyUse(print, this.settings.maxPagesPerReceipt) !== 'copy' ? await blobs.get(d.sha256) : null;
      out.set(d._id, { receiptId: d._id, filename: d.original_filename, kind: kindOf(d), sha256: d.sha256, ...(bytes ? { bytes: own(bytes) } : {}), ...(print ? { print: own(print) } : {}) });
    }));
    return out;
  }

  /** Keeps the print copies a report made, one write at a time (a report of old receipts makes many). */
  private keeping: Promise<void> = Promise.resolve();
  keepPrintCopy(sha256: string, copy: Uint8Array): void {
    const blobs = this.blobs;
    if (!blobs) return;
    this.keeping = this.keeping.then(() => blobs.putDerived(sha256, PRINT_COPY, copy)).catch((error: unknown) => {
      console.warn(`a receipt's print copy could not be kept: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** Resolves when the print copies handed to keepPrintCopy so far are written. */
  printCopiesKept(): Promise<void> {
    return this.keeping;
  }

  /** Transactions as report rows, with the receipts the viewer may see (and their files when asked). */
  async transactions(docs: TransactionDoc[], withFiles: boolean): Promise<ReportTransaction[]> {
    await this.names(docs.map((d) => d.userId));
    const matched = docs.filter((d) => d.receipt_count > 0);
    const links = new Map<string, MatchDoc[]>();
    await Promise.all(matched.map(async (d) => {
      links.set(d._id, await this.store.collection<MatchDoc>(MATCHES).find({ companyId: this.scope.companyId, transactionId: d._id, status: 'confirmed' }));
    }));
    const receiptIds = [...new Set([...links.values()].flat().map((m) => m.receiptId))];
    const receipts = (await this.store.getMany(RECEIPTS, receiptIds)) as Map<string, ReceiptDoc>;
    const visible = (r: ReceiptDoc | undefined): r is ReceiptDoc => !!r && (!this.scope.userId || r.userId === this.scope.userId);
    const shown = new Map(docs.map((d) => [d._id, (links.get(d._id) ?? []).map((m) => receipts.get(m.receiptId)).filter(visible)]));
    const files = await this.files([...new Map([...shown.values()].flat().map((r) => [r._id, r])).values()], withFiles);
    const rows: ReportTransaction[] = [];
    const want = this.statusFilter;
    for (const d of docs) {
      const mine = shown.get(d._id)!;
      // Admins' rows are filtered by the store; a member's by what they may see.
      if (this.scope.userId && want && (mine.length > 0 ? 'matched' : 'unmatched') !== want) continue;
      rows.push({
        id: d._id,
        date: d.transaction_date,
        description: d.description,
        amountCents: d.amountCents,
        salesTaxCents: d.salesTaxCents,
        category: d.category_name,
        jobNumber: d.job_number_name,
        costCode: d.cost_code_name,
        owner: this.users.get(d.userId) ?? '',
        receipts: this.scope.userId ? mine.map((r) => r.original_filename) : [...d.receipts],
        attachments: mine.flatMap((r) => (files.has(r._id) ? [files.get(r._id)!] : [])),
        split: d.split ? { totalCents: d.split.totalCents, parts: d.split.parts.map((p) => ({ amountCents: p.amountCents, category: p.category, jobNumber: p.jobNumber, costCode: p.costCode, ...(p.note ? { note: p.note } : {}) })) } : null,
      });
    }
    return rows;
  }

  async receipts(docs: ReceiptDoc[], withFiles: boolean, linkBase: string): Promise<ReportReceipt[]> {
    await this.names(docs.map((d) => d.userId));
    const files = await this.files(docs, withFiles);
    return docs.map((d) => ({
      id: d._id,
      filename: d.original_filename,
      uploadDate: d.upload_date,
      date: d.receipt_date,
      merchant: d.extracted_merchant,
      description: d.extracted_description,
      amountCents: d.extractedCents,
      taxCents: d.taxCents,
      status: d.processing_status,
      matched: d.match_count > 0,
      owner: this.users.get(d.userId) ?? '',
      ocrSource: d.ocr_source,
      ocrConfidence: d.ocr_confidence,
      link: `${linkBase}/receipts?receipt=${encodeURIComponent(d._id)}`,
      attachments: files.has(d._id) ? [files.get(d._id)!] : [],
    }));
  }

  /** The matches of the report (pending and confirmed the viewer may see), in the period by transaction date. */
  async matches(): Promise<ReportMatch[]> {
    const docs = await visibleMatches(this.store, this.scope.companyId, ['pending', 'confirmed'], this.scope.userId ? { userId: this.scope.userId } : {});
    const txs = (await this.store.getMany(TRANSACTIONS, [...new Set(docs.map((d) => d.transactionId))])) as Map<string, TransactionDoc>;
    await this.names([...txs.values()].map((t) => t.userId));
    const views = await toMatchViews(this.store, docs);
    const { startDate, endDate } = this.settings;
    return views
      .filter((v) => v.transaction_date !== null && (!startDate || v.transaction_date >= startDate) && (!endDate || v.transaction_date <= endDate))
      .map((v) => ({
        id: v.id,
        status: v.user_confirmed ? 'confirmed' : 'pending',
        confidence: v.match_confidence,
        receiptFilename: v.original_filename ?? '',
        merchant: v.extracted_merchant,
        receiptDate: v.extracted_date,
        receiptAmountCents: v.extracted_amount === null ? null : Math.round(v.extracted_amount * 100),
        description: v.description ?? '',
        transactionDate: v.transaction_date!,
        transactionAmountCents: v.transaction_amount === null ? 0 : Math.round(v.transaction_amount * 100),
        owner: this.users.get(txs.get(v.transaction_id)?.userId ?? '') ?? '',
      }));
  }

  /** Whether the store walks an index without copying (embedded): then rows are never sorted here. */
  private get walks(): boolean {
    return typeof (this.store.collection(TRANSACTIONS) as unknown as Partial<MapsPages>).mapPage === 'function';
  }

  /**
   * A source of pages for the render worker. With the embedded store the first pass walks the
   * scope's index in its natural order (filtering here) and the worker orders the rows; other
   * stores (MongoDB) sort on their server.
   */
  source(options: SourceOptions): ReportSource {
    const cursors = new Map<ReportPass, () => Promise<{ rows: ReportRow[]; done: boolean }>>();
    const walk = this.walks && !options.noWalk;
    return {
      keepPrintCopy: (sha256, copy) => this.keepPrintCopy(sha256, copy),
      next: (pass) => {
        let cursor = cursors.get(pass);
        if (!cursor) cursors.set(pass, (cursor = this.cursor(pass, options, walk)));
        return cursor();
      },
      ...(walk
        ? {
          byIds: async (type: 'transaction' | 'receipt', ids: string[]): Promise<ReportRow[]> => {
            const withFiles = options.attachments;
            if (type === 'transaction') {
              const found = (await this.store.getMany(TRANSACTIONS, ids)) as Map<string, TransactionDoc>;
              const docs = ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
              return (await this.transactions(docs, withFiles)).map((r) => ({ type: 'transaction' as const, ...r }));
            }
            const found = (await this.store.getMany(RECEIPTS, ids)) as Map<string, ReceiptDoc>;
            const docs = ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
            return (await this.receipts(docs, withFiles, options.linkBase)).map((r) => ({ type: 'receipt' as const, ...r }));
          },
        }
        : {}),
    };
  }

  /** The scope's own documents by walking its index, with the rest of the filter applied here. */
  private async walkPage<T extends Doc>(name: string, skip: number, size: number, keep: (d: T) => boolean): Promise<{ docs: T[]; raw: number }> {
    const coll = this.store.collection<T>(name) as unknown as MapsPages;
    const seen = await coll.mapPage({ companyId: this.scope.companyId, ...this.own() }, skip, size, (d) => (keep(d as T) ? ({ ...d } as T) : null));
    return { docs: seen.filter((d): d is T => d !== null), raw: seen.length };
  }

  private keepTransaction = (d: TransactionDoc): boolean => {
    const { startDate, endDate } = this.settings;
    if ((startDate && d.transaction_date < startDate) || (endDate && d.transaction_date > endDate)) return false;
    const want = this.scope.userId ? undefined : this.statusFilter;
    return !want || (want === 'matched') === d.receipt_count > 0;
  };

  private keepReceipt = (d: ReceiptDoc): boolean => {
    const { startDate, endDate } = this.settings;
    if ((startDate && d.receipt_date < startDate) || (endDate && d.receipt_date > endDate)) return false;
    const want = this.statusFilter;
    return !want || (want === 'matched') === d.match_count > 0;
  };

  private cursor(pass: ReportPass, options: SourceOptions, walk: boolean): () => Promise<{ rows: ReportRow[]; done: boolean }> {
    const detail = pass === 'detail';
    const size = options.pageSize ?? (detail && options.attachments ? 200 : 2000);
    // Walking: the detail pass gives only the matches (the worker asks for the rest by id).
    const parts = walk && detail ? this.parts().filter((p) => p === 'matches') : this.parts();
    let part = 0;
    let skip = 0;
    let matches: ReportMatch[] | null = null;
    const sortOf = (p: 'transactions' | 'receipts'): SortSpec => (this.type === 'analytics' ? groupSort(p, 'date') : groupSort(p, this.settings.groupBy));
    return async () => {
      const rows: ReportRow[] = [];
      while (part < parts.length && rows.length === 0) {
        const p = parts[part]!;
        let got = 0;
        if (p === 'transactions' && walk) {
          const { docs, raw } = await this.walkPage<TransactionDoc>(TRANSACTIONS, skip, size, this.keepTransaction);
          got = raw;
          for (const r of await this.transactions(docs, false)) rows.push({ type: 'transaction', ...r });
        } else if (p === 'receipts' && walk) {
          const { docs, raw } = await this.walkPage<ReceiptDoc>(RECEIPTS, skip, size, this.keepReceipt);
          got = raw;
          for (const r of await this.receipts(docs, false, options.linkBase)) rows.push({ type: 'receipt', ...r });
        } else if (p === 'transactions') {
          const docs = await readPage<TransactionDoc>(this.store.collection<TransactionDoc>(TRANSACTIONS), this.transactionFilter(), sortOf(p), detail, skip, size);
          got = docs.length;
          for (const r of await this.transactions(docs, detail && options.attachments)) rows.push({ type: 'transaction', ...r });
        } else if (p === 'receipts') {
          const docs = await readPage<ReceiptDoc>(this.store.collection<ReceiptDoc>(RECEIPTS), this.receiptFilter(), sortOf(p), detail, skip, size);
          got = docs.length;
          for (const r of await this.receipts(docs, detail && options.attachments, options.linkBase)) rows.push({ type: 'receipt', ...r });
        } else {
          if (!matches) {
            matches = await this.matches();
            const cmp = compareForGroup(this.type === 'analytics' ? 'date' : this.settings.groupBy);
            matches = matches.map((m) => ({ type: 'match' as const, ...m })).sort(cmp).map(({ type: _t, ...m }) => m as ReportMatch);
          }
          const slice = matches.slice(skip, skip + size);
          got = slice.length;
          for (const m of slice) rows.push({ type: 'match', ...m });
        }
        skip += got;
        if (got < size) {
          part++;
          skip = 0;
        }
      }
      return { rows, done: part >= parts.length };
    };
  }
}
