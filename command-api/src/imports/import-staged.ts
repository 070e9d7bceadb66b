/**
 * A large statement imported without its rows on the request thread (ADR 0008, fourth pass).
 * The event store may offer a `StatementStager`: the file is parsed, its rows assigned and
 * decided, and the import's events made, in a thread beside the connection that appends them
 * (infra's SQLite event store: its bulk writer thread). This thread keeps the control flow and
 * every read a decision rests on (the file's claim, the ledger's revision, read-side waits, the
 * company's members, the dedup keys it holds: ADR 0023) and appends the plan through the bus as
 * every command does: the held events travel as placeholders and are written in the same atomic
 * append as the take, the ledger, the claim and the request's record (ADR 0010, 0016).
 */
import type { Request, Response } from 'express';
import {
  importAssignees,
  type ColumnMapping,
  type ImportResult,
  type Role,
} from '@paperlink/domain';
import type { Plan } from '../core/bus';
import { send } from '../core/http';
import { newId } from '../core/ids';
import { readSideCurrent } from '../core/read-side';
import { fileClaimed, readLedger } from './ledger';
import { DEFAULT_MAX_IMPORT_ROWS, importAnswerWait, type ImportDeps } from './import-deps';
import type { StatementStager } from './stage-port';
import { completeImport, importAppends, resumeOf } from './import-plan';
import { dedupOwner, importFileKey } from './scope';

/** The import route's parts that both paths share (import.ts). */
export interface ImportRouteParts {
  savedMapping(companyId: string, headerKey: string): Promise<ColumnMapping | null>;
  mappingRequired(needsMapping: unknown): Error;
}

/** Work on the request thread between turns of the event loop, at most. */
const SLICE_MS = 15;

/** `joined.split('\n')` (none for ''), a turn of the event loop whenever a slice took SLICE_MS. */
async function splitInSlices(joined: string): Promise<string[]> {
  const out: string[] = [];
  let slice = performance.now();
  for (let from = 0; from < joined.length;) {
    let to = joined.indexOf('\n', from);
    if (to < 0) to = joined.length;
    out.push(joined.slice(from, to));
    from = to + 1;
    if ((out.length & 1023) === 0 && performance.now() - slice > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  return out;
}

/** POST /transactions/import for a file of at least `stageBytes` when the store offers a stager. */
export async function stagedImport(
  req: Request,
  res: Response,
  deps: ImportDeps & { stager: StatementStager },
  parts: ImportRouteParts,
  file: { buffer: Buffer; originalname: string },
  bodyMapping: ColumnMapping | undefined,
  ledgerHints: Map<string, number>,
): Promise<void> {
  const { bus, stager } = deps;
  const ctx = res.locals.ctx as { companyId: string; userId: string; role: Role };
  const maxRows = deps.maxRows ?? DEFAULT_MAX_IMPORT_ROWS;
  // A copy is moved to the thread: the request's buffer stays for the fingerprint of the file.
  const stageOf = (mapping: ColumnMapping | undefined) => stager.stage(new Uint8Array(file.buffer), { ...(mapping ? { mapping } : {}), maxRows });
  let answer = await stageOf(bodyMapping);
  let mapping = bodyMapping;
  if ('needsMapping' in answer) {
    const saved = await parts.savedMapping(ctx.companyId, answer.headerKey);
    if (!saved) throw parts.mappingRequired({ ...answer.needsMapping, headerKey: answer.headerKey });
    mapping = saved;
    answer = await stageOf(saved);
    if ('needsMapping' in answer) throw parts.mappingRequired({ ...answer.needsMapping, headerKey: answer.headerKey });
  }
  const staged = answer;
  const fileHash = importFileKey(staged.fileHash, ctx);
  try {
    if (!(await fileClaimed(bus.events, ctx.companyId, fileHash))) await readSideCurrent(bus, ctx.companyId, deps.decisionPosition);
    const { members, fallbackId } = importAssignees(await deps.members(ctx.companyId), ctx);
    const names = new Map(members.map((m) => [m.userId, `${m.firstName} ${m.lastName}`.trim()]));
    const withNames = (m: ImportResult['userMatching']) => ({ ...m, details: m.details.map((d) => ({ ...d, assignedToName: names.get(d.assignedTo) ?? null })) });
    const importId = newId();
    await send(req, res, bus, async (c): Promise<Plan> => {
      const ledger = await readLedger(bus.events, c.companyId!, fileHash, ledgerHints);
      // An import of this file taken and not finished is completed (import-plan.ts).
      const resume = await resumeOf(bus.events, ledger, c.companyId!, c.userId!);
      const id = resume?.importId ?? importId;
      if (!ledger.alreadyImported) await readSideCurrent(bus, c.companyId!, deps.decisionPosition);
      const existingKeys = ledger.alreadyImported ? new Map<string, number>() : await deps.existingKeys(c.companyId!, await splitInSlices(staged.keys), dedupOwner(ctx));
      const decided = await stager.decide(staged.stage, {
        importId: id, companyId: c.companyId!, importedBy: c.userId!, fileName: file.originalname, fileHash, members, fallbackId, existingKeys: [...existingKeys], alreadyImported: ledger.alreadyImported,
      });
      const base = { importId: id, companyId: c.companyId!, fileName: file.originalname, fileHash, importedBy: c.userId!, layout: staged.layout };
      const { events, result } = resume ? completeImport(decided, resume, base) : decided;
      return {
        status: 200,
        ...importAnswerWait(result.imported, deps),
        appends: importAppends({ companyId: c.companyId!, importId: id, fileHash, importedBy: c.userId! }, events, ledger, mapping && bodyMapping ? { headerKey: staged.headerKey, mapping } : undefined, resume),
        body: { ...result, userMatching: withNames(result.userMatching), fileName: file.originalname, fileHash, layout: staged.layout, ignoredRows: staged.ignoredRows, message: `Import completed! ${result.imported} transactions imported` },
      };
    });
  } finally {
    stager.release(staged.stage);
  }
}
