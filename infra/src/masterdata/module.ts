import { masterDataCommands, readSideCurrent } from '@paperlink/command-api';
import { getMasterItem, masterDataProjections } from '@paperlink/projections';
import { masterDataQueries } from '@paperlink/query-api';
import type { Feature, Kernel } from '../boot/feature';

/** The transaction field that refers to a master data item of each kind. */
const USAGE_FIELD = { categories: 'category_name', job_numbers: 'job_number_name', cost_codes: 'cost_code_name' } as const;

const masterDataDeps = (k: Kernel) => ({
  bus: k.bus,
  // Whether an item is in use decides its deletion: read once the read models are current (ADR 0023).
  usage: async (companyId: string, kind: keyof typeof USAGE_FIELD, id: string) => {
    await readSideCurrent(k.bus, companyId, k.decisionPosition);
    const item = await getMasterItem(k.readStore, companyId, kind, id);
    return item ? k.readStore.collection('transactions').count({ companyId, [USAGE_FIELD[kind]]: item.name }) : 0;
  },
  item: (companyId: string, kind: keyof typeof USAGE_FIELD, id: string) => getMasterItem(k.readStore, companyId, kind, id),
  parsers: k.cpu.parsers,
});

/** Categories, job numbers and cost codes. */
export const masterData: Feature = {
  feature: 'masterdata',
  commands: masterDataCommands,
  queries: masterDataQueries,
  projections: masterDataProjections,
  wire: (k) => ({ routes: [...masterDataQueries.routers!({ store: k.readStore }), ...masterDataCommands.routers(masterDataDeps(k))] }),
};
