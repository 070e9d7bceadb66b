import { type Decider } from '../core/decider';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../core/errors';
import type { Role } from '../core/context';
import { hasUnsafeCharacters, unsafeTextMessage } from '../core/text';

/** Categories, job numbers and cost codes of one company: one stream per company. */
export type MasterKind = 'categories' | 'job_numbers' | 'cost_codes';
export const MASTER_KINDS: readonly MasterKind[] = ['categories', 'job_numbers', 'cost_codes'];
export const MASTER_LABEL: Record<MasterKind, { one: string; many: string }> = {
  categories: { one: 'category', many: 'categories' },
  job_numbers: { one: 'job number', many: 'job numbers' },
  cost_codes: { one: 'cost code', many: 'cost codes' },
};
export const MAX_MASTER_NAME = 200;

export type MasterDataEvent =
  | { type: 'MasterItemAdded'; data: { companyId: string; kind: MasterKind; id: string; name: string; categoryId?: string; source?: { fileName: string; row: number } } }
  | { type: 'MasterItemUpdated'; data: { companyId: string; kind: MasterKind; id: string; name: string; categoryId?: string } }
  | { type: 'MasterItemDeleted'; data: { companyId: string; kind: MasterKind; id: string } };

export interface MasterItem {
  name: string;
  categoryId?: string;
}

export interface MasterDataState {
  /** Maps, never plain objects: ids come from requests, and `__proto__` must not be found. */
  items: Record<MasterKind, ReadonlyMap<string, MasterItem>>;
}

export interface ImportRow {
  row: number;
  name: string;
  /** Cost codes: the name of their category (created when missing). */
  category?: string;
}

export interface ImportOutcome {
  summary: { imported: number; skipped: number; errors: number; totalRows: number };
  details: { duplicates: Array<{ row: number; name: string; reason: string }>; errors: Array<{ row: number; error: string; name: string }> };
}

export type MasterDataCommand =
  | { type: 'AddItem'; companyId: string; role: Role; kind: MasterKind; id: string; name: string; categoryId?: string }
  | { type: 'UpdateItem'; companyId: string; role: Role; kind: MasterKind; id: string; name: string; categoryId?: string }
  /** `inUse`: how many transactions use the item (read by the caller, passed in). */
  | { type: 'DeleteItem'; companyId: string; role: Role; kind: MasterKind; id: string; inUse: number }
  /** `newId` gives ids for new items in order; the outcome is read back with `importOutcome`. */
  | { type: 'ImportItems'; companyId: string; role: Role; kind: MasterKind; fileName: string; rows: ImportRow[]; rowErrors: Array<{ row: number; error: string; name: string }>; newIds: string[] };

export const normaliseName = (name: string) => name.trim().replace(/\s+/g, ' ');
const key = (name: string) => normaliseName(name).toLowerCase();

export function findByName(state: MasterDataState, kind: MasterKind, name: string): string | undefined {
  const k = key(name);
  for (const [id, item] of state.items[kind]) if (key(item.name) === k) return id;
  return undefined;
}

function requireAdmin(role: Role): void {
  if (role !== 'admin') throw new ForbiddenError('Access denied. Admin privileges required.', 'admin_required');
}

function checkName(name: string): string {
  const n = normaliseName(name);
  if (!n) throw new ValidationError('Name cannot be empty.', [{ field: 'name', message: 'Name cannot be empty.' }]);
  if (n.length > MAX_MASTER_NAME) throw new ValidationError(`Name must be at most ${MAX_MASTER_NAME} characters.`, [{ field: 'name', message: `Name must be at most ${MAX_MASTER_NAME} characters.` }]);
  if (hasUnsafeCharacters(name)) throw new ValidationError(`${unsafeTextMessage('Name')}.`, [{ field: 'name', message: `${unsafeTextMessage('Name')}.` }]);
  return n;
}

function checkUnique(state: MasterDataState, kind: MasterKind, name: string, exceptId?: string): void {
  const existing = findByName(state, kind, name);
  if (existing && existing !== exceptId) throw new ConflictError(`A ${MASTER_LABEL[kind].one} named "${name}" already exists.`, 'duplicate_name');
}

function checkCategory(state: MasterDataState, kind: MasterKind, categoryId: string | undefined): void {
  if (kind !== 'cost_codes') return;
  if (!categoryId) throw new ValidationError('Choose the category this cost code belongs to.', [{ field: 'category_id', message: 'Choose the category this cost code belongs to.' }]);
  if (!state.items.categories.has(categoryId)) throw new ValidationError('That category does not exist.', [{ field: 'category_id', message: 'That category does not exist.' }]);
}

export const masterDataDecider: Decider<MasterDataState, MasterDataCommand, MasterDataEvent> = {
  initialState: () => ({ items: { categories: new Map(), job_numbers: new Map(), cost_codes: new Map() } }),
  evolve(state, event) {
    const { kind, id } = event.data;
    const items = new Map(state.items[kind]);
    switch (event.type) {
      case 'MasterItemAdded':
      case 'MasterItemUpdated':
        items.set(id, { name: event.data.name, ...(event.data.categoryId ? { categoryId: event.data.categoryId } : {}) });
        break;
      case 'MasterItemDeleted':
        items.delete(id);
        break;
    }
    return { items: { ...state.items, [kind]: items } };
  },
  decide(command, state) {
    requireAdmin(command.role);
    const { companyId, kind } = command;
    switch (command.type) {
      case 'AddItem': {
        const name = checkName(command.name);
        checkUnique(state, kind, name);
        checkCategory(state, kind, command.categoryId);
        return [{ type: 'MasterItemAdded', data: { companyId, kind, id: command.id, name, ...(kind === 'cost_codes' ? { categoryId: command.categoryId! } : {}) } }];
      }
      case 'UpdateItem': {
        const current = state.items[kind].get(command.id);
        if (!current) throw new NotFoundError(`That ${MASTER_LABEL[kind].one} does not exist.`, 'item_not_found');
        const name = checkName(command.name);
        checkUnique(state, kind, name, command.id);
        const categoryId = kind === 'cost_codes' ? (command.categoryId ?? current.categoryId) : undefined;
        checkCategory(state, kind, categoryId);
        if (name === current.name && categoryId === current.categoryId) return [];
        return [{ type: 'MasterItemUpdated', data: { companyId, kind, id: command.id, name, ...(categoryId ? { categoryId } : {}) } }];
      }
      case 'DeleteItem': {
        const current = state.items[kind].get(command.id);
        if (!current) throw new NotFoundError(`That ${MASTER_LABEL[kind].one} does not exist.`, 'item_not_found');
        if (command.inUse > 0) {
          throw new ConflictError(`"${current.name}" is used by ${command.inUse} transaction${command.inUse === 1 ? '' : 's'} and cannot be deleted.`, 'item_in_use');
        }
        if (kind === 'categories') {
          const codes = [...state.items.cost_codes.values()].filter((c) => c.categoryId === command.id).length;
          if (codes > 0) throw new ConflictError(`"${current.name}" has ${codes} cost code${codes === 1 ? '' : 's'}; delete or move them first.`, 'category_has_cost_codes');
        }
        return [{ type: 'MasterItemDeleted', data: { companyId, kind, id: command.id } }];
      }
      case 'ImportItems':
        return planImport(command, state);
    }
  },
};

function planImport(command: Extract<MasterDataCommand, { type: 'ImportItems' }>, state: MasterDataState): MasterDataEvent[] {
  const { companyId, kind, fileName } = command;
  const events: MasterDataEvent[] = [];
  let s = state;
  let nextId = 0;
  const take = () => {
    const id = command.newIds[nextId++];
    if (!id) throw new Error('not enough ids for the import');
    return id;
  };
  const add = (e: MasterDataEvent) => {
    events.push(e);
    s = masterDataDecider.evolve(s, e);
  };
  for (const row of command.rows) {
    const name = normaliseName(row.name);
    if (!name || name.length > MAX_MASTER_NAME || hasUnsafeCharacters(row.name) || findByName(s, kind, name)) continue;
    let categoryId: string | undefined;
    if (kind === 'cost_codes') {
      const categoryName = normaliseName(row.category ?? '');
      if (!categoryName || categoryName.length > MAX_MASTER_NAME || hasUnsafeCharacters(row.category ?? '')) continue;
      categoryId = findByName(s, 'categories', categoryName);
      if (!categoryId) {
        categoryId = take();
        add({ type: 'MasterItemAdded', data: { companyId, kind: 'categories', id: categoryId, name: categoryName, source: { fileName, row: row.row } } });
      }
    }
    add({ type: 'MasterItemAdded', data: { companyId, kind, id: take(), name, ...(categoryId ? { categoryId } : {}), source: { fileName, row: row.row } } });
  }
  return events;
}

/** The spec's import answer, from the rows and the state before the import. */
export function importOutcome(command: Extract<MasterDataCommand, { type: 'ImportItems' }>, state: MasterDataState): ImportOutcome {
  const duplicates: ImportOutcome['details']['duplicates'] = [];
  const errors = [...command.rowErrors];
  const seen = new Set<string>();
  let imported = 0;
  for (const row of command.rows) {
    const name = normaliseName(row.name);
    if (!name) {
      errors.push({ row: row.row, error: 'Name cannot be empty.', name: row.name });
      continue;
    }
    if (name.length > MAX_MASTER_NAME) {
      errors.push({ row: row.row, error: `Name must be at most ${MAX_MASTER_NAME} characters.`, name });
      continue;
    }
    if (hasUnsafeCharacters(row.name) || hasUnsafeCharacters(row.category ?? '')) {
      errors.push({ row: row.row, error: `${unsafeTextMessage('Name')}.`, name });
      continue;
    }
    if (command.kind === 'cost_codes' && !normaliseName(row.category ?? '')) {
      errors.push({ row: row.row, error: 'Category is required for a cost code.', name });
      continue;
    }
    if (seen.has(key(name))) {
      duplicates.push({ row: row.row, name, reason: 'Appears earlier in this file' });
      continue;
    }
    seen.add(key(name));
    if (findByName(state, command.kind, name)) {
      duplicates.push({ row: row.row, name, reason: `This ${MASTER_LABEL[command.kind].one} already exists` });
      continue;
    }
    imported++;
  }
  errors.sort((a, b) => a.row - b.row);
  return {
    summary: { imported, skipped: duplicates.length, errors: errors.length, totalRows: command.rows.length + command.rowErrors.length },
    details: { duplicates, errors },
  };
}
