import { ok, type QueryModule } from '../core/module';
import type { ReadStore } from '@paperlink/domain';
import { MasterKindParams } from '@paperlink/domain/http/params';
import { masterDataQueryRouter } from './routes';

/** The master data lists. */
export const masterDataQueries: QueryModule<{ store: ReadStore }> = {
  feature: 'masterdata',
  operations: [
    { method: 'get', path: '/masterdata/:kind', summary: 'A master data list', tags: ['masterdata'], auth: 'company', params: MasterKindParams, success: ok('Items') },
  ],
  routers: (deps) => [masterDataQueryRouter(deps.store)],
};
