/**
 * Wires the learning AI calls to the read models and the worker pool. Each company's
 * categoriser (linear model and payee memory of its categorised transactions) is trained in
 * the worker pool, the first time it is needed and again in the background when it is older
 * than REFRESH_MS; feedback is read fresh on every prediction, so an answer changes the next
 * prediction at once. Everything here is rebuilt from read models: nothing to migrate.
 */
import { emptyEntry, feedbackInEntry, merchantKey, predictCategory, type CategorizerModel, type LabelledLine, type OfflineCategorizer, type PayeeMemory, type ReadStore } from '@paperlink/domain';
import type { AiLearningDeps, AiReceipt, AiTransaction, CommandBus } from '@paperlink/command-api';
import {
  aiStats, dismissedPairs, duplicateGroup, duplicateGroups, feedbackForMerchant, getReceipt, getTransaction, listMasterItems, RECEIPTS, TRANSACTIONS,
  companySettings, type ReceiptDoc, type TransactionDoc,
} from '@paperlink/projections';
import { findInPages } from '../readstore/paged';
import type { WorkerPool } from '../workers/pool';

/**
 * A trained categoriser is retrained in the background on its next use when it is older than
 * REFRESH_MS and the company's transactions were added or removed since, or when it is older
 * than MAX_AGE_MS (edits of categories change no count). Feedback needs neither: it is read
 * fresh on every prediction.
 */
const REFRESH_MS = 15_000;
const MAX_AGE_MS = 120_000;
/**
 * How long a prediction waits for a company's first training (a big company's takes longer):
 * after that it answers from feedback and category names, and the training finishes behind it.
 */
const FIRST_TRAINING_WAIT_MS = 8_000;
const UNTRAINED: Trained = { model: { linear: null, trainedOn: 0, calibration: null }, memory: {}, at: 0, count: -1 };
/** The newest categorised lines a company's model learns from. */
const MAX_TRAINING_LINES = 20_000;

/** Lines read per call while the newest categorised ones are gathered. */
const TRAINING_PAGE = 2_000;

/**
 * The company's newest MAX_TRAINING_LINES categorised lines, oldest first, read newest first from
 * the (companyId, transaction_date) index a page per turn of the event loop. Reading every line
 * and sorting them here held the request thread for 0.5 s and more at 1,000,000 lines.
 */
export async function newestLabelled(store: ReadStore, companyId: string, max = MAX_TRAINING_LINES, pageSize = TRAINING_PAGE): Promise<LabelledLine[]> {
  const c = store.collection<TransactionDoc>(TRANSACTIONS);
  const out: LabelledLine[] = [];
  for (let skip = 0; out.length < max; skip += pageSize) {
    const page = await c.find({ companyId }, { sort: { transaction_date: -1 }, skip, limit: pageSize, hint: ['companyId', 'transaction_date'] });
    for (const d of page) {
      if (d.category_name && out.length < max) out.push({ description: d.description, amountCents: d.amountCents, categoryId: d.category_name });
    }
    if (page.length < pageSize) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out.reverse();
}

interface Trained {
  model: CategorizerModel;
  memory: PayeeMemory;
  at: number;
  /** The company's transaction count when it was trained. */
  count: number;
}

const asTransaction = (d: TransactionDoc): AiTransaction => ({ id: d._id, userId: d.userId, date: d.transaction_date, description: d.description, amountCents: d.amountCents, categoryName: d.category_name || null });
const asReceipt = (d: ReceiptDoc): AiReceipt => ({ id: d._id, userId: d.userId, date: d.extracted_date, amountCents: d.extractedCents, merchant: d.extracted_merchant, fileHash: d.sha256 ?? null, fileName: d.original_filename });

export class CompanyCategorizers {
  private readonly trained = new Map<string, Trained>();
  private readonly training = new Map<string, Promise<Trained>>();

  constructor(private readonly store: ReadStore, private readonly pool: WorkerPool) {}

  private count(companyId: string): Promise<number> {
    return this.store.collection<TransactionDoc>(TRANSACTIONS).count({ companyId });
  }

  private async train(companyId: string): Promise<Trained> {
    const count = await this.count(companyId);
    const labelled = await newestLabelled(this.store, companyId);
    const names = [...new Set(labelled.map((l) => l.categoryId))];
    const master = await listMasterItems(this.store, companyId, 'categories');
    const categories = [...new Set([...names, ...master.map((m) => m.name)])].map((n) => ({ id: n, name: n }));
    const out = await this.pool.run('trainCategorizer', { lines: labelled, categories });
    const t = { ...out, at: Date.now(), count };
    this.trained.set(companyId, t);
    return t;
  }

  /** The company's categoriser: trained now the first time, retrained in the background when old. */
  private async current(companyId: string): Promise<Trained> {
    const have = this.trained.get(companyId);
    const age = have ? Date.now() - have.at : Infinity;
    const stale = !have || age > MAX_AGE_MS || (age > REFRESH_MS && (await this.count(companyId)) !== have.count);
    if (stale && !this.training.has(companyId)) {
      const p = this.train(companyId).finally(() => this.training.delete(companyId));
      this.training.set(companyId, p);
      p.catch((error: unknown) => console.warn(`categoriser training failed: ${String(error)}`));
    }
    if (have) return have;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<Trained>((resolve) => {
      timer = setTimeout(() => resolve(UNTRAINED), FIRST_TRAINING_WAIT_MS);
    });
    try {
      return await Promise.race([this.training.get(companyId)!.catch(() => UNTRAINED), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  async predict(companyId: string, line: { description: string; amountCents: number }, categoryNames: string[]) {
    const t = await this.current(companyId);
    const key = merchantKey(line.description);
    let entry = t.memory[key] ?? emptyEntry();
    for (const f of await feedbackForMerchant(this.store, companyId, key)) entry = feedbackInEntry(entry, f.predictedCategoryName, f.actualCategoryName);
    const learned = new Set(t.model.linear?.classes ?? []);
    for (const c of Object.keys(entry.counts)) learned.add(c);
    // The company's categories are the answers: a learned name counts when master data still has
    // it (in any case: 'FUEL' on old lines is the category 'Fuel'); without master data, every learned name.
    const master = new Set(categoryNames.map((c) => c.toLowerCase()));
    const names = master.size === 0 ? [...learned] : [...new Set([...categoryNames, ...[...learned].filter((c) => master.has(c.toLowerCase()))])];
    const p = predictCategory(line, { model: t.model, memory: { [key]: entry }, categories: names.map((n) => ({ id: n, name: n })) });
    return {
      categoryName: p.categoryId,
      confidence: p.confidence,
      source: p.source,
      merchantKey: p.merchantKey,
      alternatives: p.alternatives.map((a) => ({ categoryName: a.categoryId, probability: a.probability })),
    };
  }

  /** The language-model chain's offline last resort: the company's own categoriser. */
  offline(): OfflineCategorizer {
    return {
      name: 'offline-learned',
      categorize: async (input) => {
        if (!input.companyId) return null;
        const p = await this.predict(input.companyId, { description: input.description, amountCents: Math.round(input.amount * 100) }, [...input.categories]);
        return p.categoryName !== null && input.categories.includes(p.categoryName) ? { category: p.categoryName, confidence: p.confidence } : null;
      },
    };
  }
}

export function aiLearningDeps(store: ReadStore, pool: WorkerPool, bus: CommandBus, categorizers: CompanyCategorizers): Omit<AiLearningDeps, 'llm'> {
  const own = (companyId: string, scope: { userId?: string }) => ({ companyId, ...(scope.userId ? { userId: scope.userId } : {}) });
  return {
    bus,
    settings: (companyId) => companySettings(store, companyId),
    categories: async (companyId) => (await listMasterItems(store, companyId, 'categories')).map((c) => ({ id: c.id, name: c.name })),
    transaction: async (companyId, id) => {
      const d = await getTransaction(store, companyId, id);
      return d ? asTransaction(d) : null;
    },
    receipt: async (companyId, id) => {
      const d = await getReceipt(store, companyId, id);
      return d ? asReceipt(d) : null;
    },
    transactions: (companyId, scope, amountCents) =>
      findInPages(store.collection<TransactionDoc>(TRANSACTIONS), { ...own(companyId, scope), ...(amountCents !== undefined ? { amountCents } : {}) }, asTransaction),
    receipts: (companyId, scope, amountCents) =>
      findInPages(store.collection<ReceiptDoc>(RECEIPTS), { ...own(companyId, scope), ...(amountCents !== undefined ? { extractedCents: amountCents } : {}) }, asReceipt),
    predict: (companyId, line, names) => categorizers.predict(companyId, line, names),
    recurring: (records, onlyMerchantKey) => pool.run('recurringPatterns', { records, ...(onlyMerchantKey !== undefined ? { onlyMerchantKey } : {}) }),
    duplicateGroups: (records, options) => pool.run('duplicateGroups', { records, options }),
    duplicatesOf: (target, others, options) => pool.run('duplicatesOf', { target, others, options }),
    dismissedPairs: (companyId) => dismissedPairs(store, companyId),
    groups: (companyId, scope, status) => duplicateGroups(store, companyId, scope, status),
    group: (companyId, id) => duplicateGroup(store, companyId, id),
    stats: (companyId, scope) => aiStats(store, companyId, scope),
  };
}
