import { created, ok, type CommandModule } from '../core/module';
import { eventTypes, type MasterDataEvent } from '@paperlink/domain';
import { MasterItemBody, MasterItemParams, MasterKindParams, masterDataRouter, type MasterDataDeps } from './routes';

/** Categories, job numbers and cost codes. */
export const masterDataCommands: CommandModule<MasterDataDeps> = {
  feature: 'masterdata',
  events: eventTypes<MasterDataEvent>({ MasterItemAdded: true, MasterItemUpdated: true, MasterItemDeleted: true }),
  operations: [
    // master data
    { method: 'post', path: '/masterdata/:kind', summary: 'Add an item to a list', tags: ['masterdata'], auth: 'company', roles: ['admin'], params: MasterKindParams, body: { json: MasterItemBody }, success: created('The item') },
    { method: 'put', path: '/masterdata/:kind/:id', summary: 'Rename an item', tags: ['masterdata'], auth: 'company', roles: ['admin'], params: MasterItemParams, body: { json: MasterItemBody }, success: ok('The item') },
    { method: 'delete', path: '/masterdata/:kind/:id', summary: 'Delete an item no transaction uses', tags: ['masterdata'], auth: 'company', roles: ['admin'], params: MasterItemParams, success: ok('Deleted'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
    { method: 'post', path: '/masterdata/:kind/import', summary: 'Import items from a CSV file', tags: ['masterdata'], auth: 'company', roles: ['admin'], params: MasterKindParams, body: { multipart: { files: ['csvFile'] } }, success: ok('Added, skipped and refused rows') },
  ],
  routers: (deps) => [masterDataRouter(deps)],
};
