import type { ColumnMapping } from '../csv/types';

/**
 * Events of a company's column mappings (`csvmappings-<company>`): the mapping a person chose for
 * a statement header, offered again for the next file with that header.
 */
export type ColumnMappingEvent = { type: 'ColumnMappingSaved'; data: { companyId: string; headerKey: string; mapping: ColumnMapping } };
