import {
  fold,
  ledgerDecider,
  ledgerStream,
  statementFileStream,
  statementIndexStream,
  type EventStore,
  type ExpectedRevision,
  type ImportEvent,
  type StatementClaimEvent,
} from '@paperlink/domain';
import type { Plan } from '../core/bus';

/**
 * What an import decides on from the write side, in reads that do not grow with the company's
 * history (docs/decisions/0023-decisions-and-read-model-lag.md):
 * - whether these bytes were imported before, or an import of them began: the file's claim
 *   stream (two events at most);
 * - the revision of the company's ledger (`imports-<company>`), which every import appends to
 *   with an expected revision, so imports of one company go one at a time: found with point
 *   reads from the revision last seen (lastRevision), not by reading the ledger.
 * A company whose ledger was written before the claims existed has no index event; its first
 * import reads the ledger whole once and claims every file in it (indexAppends).
 */
export interface LedgerView {
  alreadyImported: boolean;
  /** The revision to expect on the ledger. */
  expected: ExpectedRevision;
  /** Revision of the ledger's last event (-1: empty). */
  tail: number;
  /** The claims and index event of a ledger written before claims existed (else none). */
  indexAppends: Plan['appends'];
  /** The file's take, when an import of it began and has not finished (import-plan.ts). */
  taken?: FileClaim['taken'];
}

/** Probes per lastRevision at most: 2·log2 of a stream's length, far beyond any ledger. */
const MAX_PROBES = 128;

/**
 * The revision of a stream's last event (-1: none), by point reads (one event each): from
 * `hint` (a revision known to exist) forward in doubling steps, then halving back. Two reads when
 * nothing was appended since the hint; about 2·log2(n) from nothing.
 */
export async function lastRevision(events: EventStore, streamId: string, hint = -1): Promise<number> {
  let probes = 0;
  const exists = async (revision: number) => {
    if (++probes > MAX_PROBES) throw new Error(`lastRevision: no end found in ${streamId}`);
    return (await events.readStream(streamId, { fromRevision: revision, maxCount: 1 })).length > 0;
  };
  let lo = hint >= 0 && (await exists(hint)) ? hint : -1;
  let step = 1;
  let hi: number;
  for (;;) {
    const r = lo + step;
    if (!(await exists(r))) {
      hi = r;
      break;
    }
    lo = r;
    step *= 2;
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (await exists(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

const claim = (companyId: string, fileHash: string, importId: string, afterTake = false): Plan['appends'][number] => ({
  streamId: statementFileStream(companyId, fileHash),
  // After the import's own take (revision 0), else on a stream of its own (a ledger indexed).
  expectedRevision: afterTake ? 0 : 'no_stream',
  events: [{ type: 'StatementFileClaimed', data: { companyId, fileHash, importId } } satisfies StatementClaimEvent],
});

/**
 * The claim an import appends for the file it has imported, last (import-plan.ts): after its take
 * (`afterTake`), of which it is the second event, so that of two imports completing one take one does.
 */
export function claimAppend(companyId: string, fileHash: string, importId: string, afterTake = false): Plan['appends'][number] {
  return claim(companyId, fileHash, importId, afterTake);
}

/** The take an import appends first, before its rows: `no_stream`, so of two imports of one file one takes it. */
export function takeAppend(companyId: string, fileHash: string, importId: string, importedBy: string): Plan['appends'][number] {
  return {
    streamId: statementFileStream(companyId, fileHash),
    expectedRevision: 'no_stream',
    events: [{ type: 'StatementFileTaken', data: { companyId, fileHash, importId, importedBy } } satisfies StatementClaimEvent],
  };
}

/** What a file's claim stream says: imported, or taken by an import that has not finished (with the take's position), or neither. */
export interface FileClaim {
  complete: boolean;
  taken?: { importId: string; importedBy: string; position: number };
}

/** A company's file's claim (one read of at most two events). */
export async function readClaim(events: EventStore, companyId: string, fileHash: string): Promise<FileClaim> {
  const recorded = await events.readStream(statementFileStream(companyId, fileHash), { maxCount: 2 });
  const complete = recorded.some((e) => e.type === 'StatementFileClaimed');
  const take = recorded.find((e) => e.type === 'StatementFileTaken');
  if (complete || !take) return { complete };
  const data = take.data as Extract<StatementClaimEvent, { type: 'StatementFileTaken' }>['data'];
  return { complete, taken: { importId: data.importId, importedBy: data.importedBy, position: take.position } };
}

/** Whether a company's file was imported (its claim; a take alone is an import not finished). */
export async function fileClaimed(events: EventStore, companyId: string, fileHash: string): Promise<boolean> {
  return (await readClaim(events, companyId, fileHash)).complete;
}

/**
 * The ledger as an import needs it. `hints` keeps the last revision seen per company (any
 * value is safe: a wrong one costs a few more reads).
 */
export async function readLedger(events: EventStore, companyId: string, fileHash: string, hints: Map<string, number>): Promise<LedgerView> {
  const [fileClaim, indexed] = await Promise.all([
    readClaim(events, companyId, fileHash),
    events.readStream(statementIndexStream(companyId), { maxCount: 1 }).then((e) => e.length > 0),
  ]);
  let tail: number;
  let alreadyImported = fileClaim.complete;
  const indexAppends: Plan['appends'] = [];
  if (indexed) {
    tail = await lastRevision(events, ledgerStream(companyId), hints.get(companyId) ?? -1);
  } else {
    // Once per company: a ledger from before the claims (or an empty one) is read whole and indexed.
    const recorded = await events.readStream(ledgerStream(companyId));
    tail = recorded.length - 1;
    const ledger = fold(ledgerDecider, recorded as unknown as ImportEvent[]);
    alreadyImported ||= fileHash in ledger.fileHashes;
    const files = Object.entries(ledger.fileHashes);
    const claims = await Promise.all(files.map(([hash]) => readClaim(events, companyId, hash)));
    files.forEach(([hash, importId], i) => {
      // A file in the ledger whose import stopped before its claim: claimed after its take.
      if (!claims[i]!.complete) indexAppends.push(claim(companyId, hash, importId, claims[i]!.taken !== undefined));
    });
    indexAppends.push({
      streamId: statementIndexStream(companyId),
      expectedRevision: 'no_stream',
      events: [{ type: 'StatementLedgerIndexed', data: { companyId, throughRevision: tail } } satisfies StatementClaimEvent],
    });
  }
  if (hints.size > 10_000) hints.clear();
  hints.set(companyId, tail);
  return { alreadyImported, expected: tail < 0 ? 'no_stream' : tail, tail, indexAppends, ...(fileClaim.taken && !alreadyImported ? { taken: fileClaim.taken } : {}) };
}
