import { parseBankStatement, parseMasterDataCsv } from '@paperlink/domain';
import type { MasterDataKind, MasterDataParseResult, StatementParseOptions, StatementParseResult } from '@paperlink/domain';

/**
 * CSV parsing is CPU-heavy (a 25 MB statement is seconds of work): the composition root runs
 * it off the request thread (infra's worker pool) and hands the routers this port.
 */
export interface CsvParsers {
  statement(bytes: Uint8Array, options: StatementParseOptions): Promise<StatementParseResult>;
  masterData(bytes: Uint8Array, kind: MasterDataKind): Promise<MasterDataParseResult>;
}

/** Parsing on the calling thread: for tools and tests that build a router alone, never for the server. */
export const inThreadCsvParsers: CsvParsers = {
  statement: async (bytes, options) => parseBankStatement(bytes, options),
  masterData: async (bytes, kind) => parseMasterDataCsv(bytes, kind),
};
