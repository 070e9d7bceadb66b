import { type Decider } from '../core/decider';
import { ForbiddenError, NotFoundError, ValidationError } from '../core/errors';
import type { Role } from '../core/context';

/**
 * A transaction is born in an import (its first event lives in the import's stream, with the
 * file's hash) and changes later in its own stream `transaction-<id>`.
 */
export interface ImportedRow {
  transactionId: string;
  row: number;
  date: string;
  description: string;
  amountCents: number;
  externalId?: string;
  salesTaxCents?: number;
  currency?: string;
  category?: string;
  jobNumber?: string;
  costCode?: string;
  /** The member the row was assigned to, and how. */
  assignedTo: string;
  providedName?: string;
  assignment: 'name_matched' | 'no_match_found' | 'no_names_provided' | 'error';
}

export interface TransactionFields {
  description: string;
  amountCents: number;
  salesTaxCents: number | null;
  category: string;
  jobNumber: string;
  costCode: string;
}

export type TransactionEvent =
  | { type: 'TransactionUpdated'; data: { transactionId: string; companyId: string; changes: Partial<TransactionFields> } }
  | { type: 'TransactionDeleted'; data: { transactionId: string; companyId: string } };

/** The state a change is decided on: who owns the transaction and what it says now. */
export interface TransactionState {
  status: 'active' | 'deleted';
  ownerId: string;
  fields: TransactionFields;
}

export type TransactionCommand =
  | { type: 'UpdateTransaction'; transactionId: string; companyId: string; actorId: string; role: Role; fields: TransactionFields }
  | { type: 'DeleteTransaction'; transactionId: string; companyId: string; actorId: string; role: Role };

export const TRANSACTION_EDIT_REQUIRED = 'Description, category, job number, and cost code are required';

function canSee(state: TransactionState, actorId: string, role: Role): boolean {
  return role === 'admin' || state.ownerId === actorId;
}

/**
 * The transaction decider. Its initial state comes from the import that created the row
 * (read by the caller), folded with the transaction's own stream.
 */
export function transactionDecider(initial: TransactionState): Decider<TransactionState, TransactionCommand, TransactionEvent> {
  return {
    initialState: () => initial,
    evolve(state, event) {
      switch (event.type) {
        case 'TransactionUpdated':
          return { ...state, fields: { ...state.fields, ...event.data.changes } };
        case 'TransactionDeleted':
          return { ...state, status: 'deleted' };
      }
    },
    decide(command, state) {
      if (state.status === 'deleted' || !canSee(state, command.actorId, command.role)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
      const { transactionId, companyId } = command;
      switch (command.type) {
        case 'UpdateTransaction': {
          const f = command.fields;
          const description = f.description.trim();
          const category = f.category.trim();
          const jobNumber = f.jobNumber.trim();
          const costCode = f.costCode.trim();
          if (!description || !category || !jobNumber || !costCode) throw new ValidationError(TRANSACTION_EDIT_REQUIRED);
          if (!Number.isSafeInteger(f.amountCents)) throw new ValidationError('Please enter a valid amount', [{ field: 'amount', message: 'Please enter a valid amount' }]);
          if (description.length > 500) throw new ValidationError('Description must be at most 500 characters');
          const next: TransactionFields = { description, amountCents: f.amountCents, salesTaxCents: f.salesTaxCents, category, jobNumber, costCode };
          const changes: Partial<TransactionFields> = {};
          for (const k of Object.keys(next) as Array<keyof TransactionFields>) {
            if (next[k] !== state.fields[k]) (changes as Record<string, unknown>)[k] = next[k];
          }
          if (Object.keys(changes).length === 0) return [];
          return [{ type: 'TransactionUpdated', data: { transactionId, companyId, changes } }];
        }
        case 'DeleteTransaction':
          if (command.role !== 'admin') throw new ForbiddenError('Only admins can delete transactions', 'admin_required');
          return [{ type: 'TransactionDeleted', data: { transactionId, companyId } }];
      }
    },
  };
}
