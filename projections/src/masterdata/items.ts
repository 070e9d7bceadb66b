import type { Doc, MasterDataEvent, MasterKind, ReadStore, RecordedEvent } from '@paperlink/domain';
import type { Projection } from '../core/projection';

export const MASTER_ITEMS = 'master_items';

export interface MasterItemDoc extends Doc {
  companyId: string;
  kind: MasterKind;
  name: string;
  categoryId?: string;
}

export function evolveMasterItem(doc: MasterItemDoc | null, event: MasterDataEvent): MasterItemDoc | null {
  const { companyId, kind, id } = event.data;
  switch (event.type) {
    case 'MasterItemAdded':
    case 'MasterItemUpdated':
      return { _id: id, companyId, kind, name: event.data.name, ...(event.data.categoryId ? { categoryId: event.data.categoryId } : {}) };
    case 'MasterItemDeleted':
      return doc && null;
  }
}

export const masterDataProjection: Projection = {
  name: 'master_items',
  version: 1,
  collections: { [MASTER_ITEMS]: [['companyId', 'kind']] },
  handles: new Set(['MasterItemAdded', 'MasterItemUpdated', 'MasterItemDeleted']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as MasterDataEvent;
    await view.update<MasterItemDoc>(MASTER_ITEMS, e.data.id, (doc) => evolveMasterItem(doc, e));
  },
};

export interface MasterItemView {
  id: string;
  name: string;
  category_id?: string;
  category_name?: string | null;
}

/** A company's list of one kind, sorted by name; cost codes carry their category's name. */
export async function listMasterItems(store: ReadStore, companyId: string, kind: MasterKind): Promise<MasterItemView[]> {
  const docs = await store.collection<MasterItemDoc>(MASTER_ITEMS).find({ companyId, kind }, { sort: { name: 1 } });
  if (kind !== 'cost_codes') return docs.map((d) => ({ id: d._id, name: d.name }));
  const categories = await store.collection<MasterItemDoc>(MASTER_ITEMS).find({ companyId, kind: 'categories' });
  const names = new Map(categories.map((c) => [c._id, c.name]));
  return docs.map((d) => ({ id: d._id, name: d.name, category_id: d.categoryId!, category_name: names.get(d.categoryId!) ?? null }));
}

export async function getMasterItem(store: ReadStore, companyId: string, kind: MasterKind, id: string): Promise<MasterItemView | null> {
  return (await listMasterItems(store, companyId, kind)).find((i) => i.id === id) ?? null;
}
