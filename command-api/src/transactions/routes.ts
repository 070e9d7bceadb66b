import { Router } from 'express';
import { z } from 'zod';
import {
  fold,
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
  type TransactionEvent,
  type TransactionState,
} from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
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

/** Folds a transaction: its row in the import, then its own stream. */
export async function loadTransaction(deps: TransactionDeps, companyId: string, id: string): Promise<{ state: TransactionState; expected: ExpectedRevision }> {
  const where = await deps.locator.locate(companyId, id);
  if (!where) throw new NotFoundError('Transaction not found', 'transaction_not_found');
  const [origin] = await deps.events.readStream(importStream(where.importId), { fromRevision: where.importRevision, maxCount: 1 });
  const e = origin as unknown as (ImportEvent & { type: 'TransactionsImported' }) | undefined;
  const row = e?.type === 'TransactionsImported' && e.data.companyId === companyId ? e.data.rows.find((r) => r.transactionId === id) : undefined;
  if (!row) throw new NotFoundError('Transaction not found', 'transaction_not_found');
  const initial: TransactionState = {
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
  const recorded = await deps.events.readStream(transactionStream(id));
  const state = fold(transactionDecider(initial), recorded as unknown as TransactionEvent[]);
  return { state, expected: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision };
}

/** Transaction edits and deletes (reads are in query-api; imports in ./import.ts). */
export function transactionRouter(deps: TransactionDeps): Router {
  const { bus } = deps;
  const router = validIdParams(Router());
  const company = requireCompany();

  const plan = (ctx: RequestContext, id: string, command: (s: TransactionState) => Parameters<ReturnType<typeof transactionDecider>['decide']>[0], body: (after: Record<string, unknown> | null) => unknown) =>
    async (): Promise<Plan> => {
      const t = await loadTransaction(deps, ctx.companyId!, id);
      const events = transactionDecider(t.state).decide(command(t.state), t.state);
      const current = await deps.view(ctx.companyId!, id, ctx.role === 'admin' ? {} : { userId: ctx.userId! });
      return { appends: [{ streamId: transactionStream(id), expectedRevision: t.expected, events }], body: body(current) };
    };

  router.put('/transactions/:id', company, async (req, res) => {
    const id = String(req.params.id);
    const b = TransactionUpdateBody.parse(req.body ?? {});
    if (!b.description.trim() || !b.category.trim() || !b.job_number.trim() || !b.cost_code.trim()) throw new ValidationError(TRANSACTION_EDIT_REQUIRED);
    const amountCents = money(b.amount, 'amount', 'Please enter a valid amount');
    const salesTaxCents = b.sales_tax === null || b.sales_tax === undefined || b.sales_tax === '' ? null : money(b.sales_tax, 'sales_tax', 'Sales tax must be a number');
    const fields = { description: b.description, amountCents, salesTaxCents, category: b.category, jobNumber: b.job_number, costCode: b.cost_code };
    await send(req, res, bus, (ctx) =>
      plan(ctx, id, () => ({ type: 'UpdateTransaction', transactionId: id, companyId: ctx.companyId!, actorId: ctx.userId!, role: ctx.role!, fields }), (current) => ({
        transaction: current && {
          ...current,
          description: fields.description.trim(),
          amount: amountCents / 100,
          sales_tax: salesTaxCents === null ? null : salesTaxCents / 100,
          category_name: fields.category.trim(),
          job_number_name: fields.jobNumber.trim(),
          cost_code_name: fields.costCode.trim(),
        },
        message: 'Transaction updated successfully',
      }))(),
    );
  });

  router.delete('/transactions/:id', company, async (req, res) => {
    const id = String(req.params.id);
    await send(req, res, bus, async (ctx) => {
      const p = await plan(ctx, id, () => ({ type: 'DeleteTransaction', transactionId: id, companyId: ctx.companyId!, actorId: ctx.userId!, role: ctx.role! }), () => ({
        success: true,
        message: 'Transaction deleted successfully',
      }))();
      // Its matches go with it, in the same append (the transaction's own row is gone, so no names are needed).
      // Matches first: where appendMany is not atomic (EventStoreDB) a failure after them leaves the
      // transaction in place for the retry, never a deleted one with matches (ADR 0016).
      return { ...p, appends: [...(await forgetTransactionAppends(bus, ctx.companyId!, ctx.userId!, id, new Map())), ...p.appends] };
    });
  });

  return router;
}
