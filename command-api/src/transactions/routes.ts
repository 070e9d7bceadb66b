import { Router } from 'express';
import { z } from 'zod';
import {
  NotFoundError,
  amountToCents,
  MONEY_RULE,
  transactionDecider,
  TRANSACTION_EDIT_REQUIRED,
  ValidationError,
  type EventStore,
  type ExpectedRevision,
  type ImportEvent,
  type RequestContext,
  type TransactionCommand,
  type TransactionEvent,
  type TransactionState,
} from '@paperlink/domain';
import { revisionOfIfMatch } from '@paperlink/domain/http/etag';
import type { CommandBus, Handled, HandleOptions, Plan } from '../core/bus';
import { send } from '../core/http';
import { requireCompany } from '../http/context';
import { validIdParams } from '../http/params';
import { forgetTransactionAppends } from '../matches/routes';

import { importStream, ledgerStream, transactionStream } from '@paperlink/domain';
export { importStream, ledgerStream, transactionStream };

/** Where the write side finds a transaction's origin: the import event that holds its row. */
export interface TransactionLocator {
  locate(companyId: string, transactionId: string): Promise<{ importId: string; importRevision: number } | null>;
}

export interface TransactionDeps {
  bus: CommandBus;
  events: EventStore;
  locator: TransactionLocator;
  /** The transaction as the API shows it after a change (for replies). */
  view(companyId: string, transactionId: string, scope?: { userId?: string }): Promise<Record<string, unknown> | null>;
}

const text = z.preprocess((v) => (v === null || v === undefined ? '' : typeof v === 'number' ? String(v) : v), z.string({ error: TRANSACTION_EDIT_REQUIRED }).max(500, 'Text fields must be at most 500 characters'));
export const TransactionUpdateBody = z.object({
  description: text,
  category: text,
  job_number: text,
  cost_code: text,
  amount: z.unknown(),
  sales_tax: z.unknown().optional(),
});

/** The money rule that CSV import applies too (domain/src/core/money.ts). */
function money(value: unknown, field: 'amount' | 'sales_tax', message: string): number {
  const cents = amountToCents(value);
  if (cents === null) {
    // A number that breaks the rule says which rule; anything else keeps the spec's message.
    const numeric = typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
    const full = numeric ? `${message} (${MONEY_RULE}).` : message;
    throw new ValidationError(full, [{ field, message: full }]);
  }
  return cents;
}

/** A transaction before its own stream: its row in the import (the decider's initial state). */
async function origin(deps: Pick<TransactionDeps, 'events' | 'locator'>, companyId: string, id: string): Promise<TransactionState> {
  const where = await deps.locator.locate(companyId, id);
  if (!where) throw new NotFoundError('Transaction not found', 'transaction_not_found');
  const [recorded] = await deps.events.readStream(importStream(where.importId), { fromRevision: where.importRevision, maxCount: 1 });
  const e = recorded as unknown as (ImportEvent & { type: 'TransactionsImported' }) | undefined;
  const row = e?.type === 'TransactionsImported' && e.data.companyId === companyId ? e.data.rows.find((r) => r.transactionId === id) : undefined;
  if (!row) throw new NotFoundError('Transaction not found', 'transaction_not_found');
  return {
    status: 'active',
    ownerId: row.assignedTo,
    fields: {
      description: row.description,
      amountCents: row.amountCents,
      salesTaxCents: row.salesTaxCents ?? null,
      category: row.category ?? '',
      jobNumber: row.jobNumber ?? '',
      costCode: row.costCode ?? '',
    },
  };
}

/** Folds a transaction: its row in the import, then its own stream (for decisions of other streams). */
export async function loadTransaction(deps: Pick<TransactionDeps, 'bus' | 'events' | 'locator'>, companyId: string, id: string): Promise<{ state: TransactionState; expected: ExpectedRevision }> {
  return deps.bus.load(transactionStream(id), transactionDecider(await origin(deps, companyId, id)));
}

/** Decides a command on a transaction (CommandBus.handle over its origin and its own stream). */
export async function handleTransaction(deps: Pick<TransactionDeps, 'bus' | 'events' | 'locator'>, companyId: string, id: string, command: TransactionCommand, options?: HandleOptions): Promise<Handled<TransactionState, TransactionEvent>> {
  return deps.bus.handle(transactionStream(id), transactionDecider(await origin(deps, companyId, id)), command, options);
}

const STALE_TRANSACTION = 'This transaction was changed by someone else. Reload to see the changes.';

/** Transaction edits and deletes (reads are in query-api; imports in ./import.ts). */
export function transactionRouter(deps: TransactionDeps): Router {
  const { bus } = deps;
  const router = validIdParams(Router());
  const company = requireCompany();

  const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

  router.put('/transactions/:id', company, async (req, res) => {
    const id = String(req.params.id);
    const b = TransactionUpdateBody.parse(req.body ?? {});
    if (!b.description.trim() || !b.category.trim() || !b.job_number.trim() || !b.cost_code.trim()) throw new ValidationError(TRANSACTION_EDIT_REQUIRED);
    const amountCents = money(b.amount, 'amount', 'Please enter a valid amount');
    const salesTaxCents = b.sales_tax === null || b.sales_tax === undefined || b.sales_tax === '' ? null : money(b.sales_tax, 'sales_tax', 'Sales tax must be a number');
    const fields = { description: b.description, amountCents, salesTaxCents, category: b.category, jobNumber: b.job_number, costCode: b.cost_code };
    const ifRevision = revisionOfIfMatch(req.header('if-match'));
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const h = await handleTransaction(deps, ctx.companyId!, id, { type: 'UpdateTransaction', transactionId: id, companyId: ctx.companyId!, actorId: ctx.userId!, role: ctx.role!, fields }, { ifRevision, staleMessage: STALE_TRANSACTION });
      return { appends: [h.append], body: { message: 'Transaction updated successfully' } };
    }, undefined, { answer: async (ctx) => ({ transaction: await deps.view(ctx.companyId!, id, scopeOf(ctx)) }) });
  });

  router.delete('/transactions/:id', company, async (req, res) => {
    const id = String(req.params.id);
    await send(req, res, bus, async (ctx) => {
      const h = await handleTransaction(deps, ctx.companyId!, id, { type: 'DeleteTransaction', transactionId: id, companyId: ctx.companyId!, actorId: ctx.userId!, role: ctx.role! });
      // Its matches go with it, in the same append (the transaction's own row is gone, so no names are needed).
      // Matches first: where appendMany is not atomic (EventStoreDB) a failure after them leaves the
      // transaction in place for the retry, never a deleted one with matches (ADR 0016).
      return { appends: [...(await forgetTransactionAppends(bus, ctx.companyId!, ctx.userId!, id, new Map())), h.append], body: { success: true, message: 'Transaction deleted successfully' } };
    });
  });

  return router;
}
