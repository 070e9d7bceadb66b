import { createHash } from 'node:crypto';
import { Router } from 'express';
import multer from 'multer';
import { z } from 'zod';
import {
  decideImport,
  assignRowsToMembers,
  importAssignees,
  ValidationError,
  AppError,
  type ColumnMapping,
  type Role,
} from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import { chunksInSlices, mapInSlices } from '../core/slices';
import { newId } from '../core/ids';
import { readSideCurrent } from '../core/read-side';
import { requireCompany } from '../http/context';
import { unreadableUpload } from '../http/uploads';
import { fileClaimed, lastRevision, readLedger } from './ledger';
import { stagedImport } from './import-staged';
import { DEFAULT_MAX_IMPORT_ROWS, DEFAULT_STAGE_BYTES, importAnswerWait, STATEMENT_MAX_BYTES, type ImportDeps } from './import-deps';

export * from './import-deps';
export type * from './stage-port';
import { completeImport, importAppends, resumeOf } from './import-plan';
import { candidateRow } from './import-rows';
import { dedupOwner, importFileKey } from './scope';


import { columnMappingStream, mappingStream } from '@paperlink/domain';
export { columnMappingStream, mappingStream };

const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: STATEMENT_MAX_BYTES, files: 1, fields: 10 } });

class MappingRequired extends AppError {
  constructor(needsMapping: unknown) {
    super(422, 'mapping_required', 'We could not recognise the columns of this file. Tell us which column is which.', needsMapping);
  }
}

const col = z.number().int().min(0).max(500);
export const MappingBody = z.object({
  date: col,
  description: col,
  amount: col.optional(),
  debit: col.optional(),
  credit: col.optional(),
  category: col.optional(),
  jobNumber: col.optional(),
  costCode: col.optional(),
  firstName: col.optional(),
  lastName: col.optional(),
  fullName: col.optional(),
  externalId: col.optional(),
  salesTax: col.optional(),
  currency: col.optional(),
  dateOrder: z.enum(['auto', 'dmy', 'mdy']).default('auto'),
  amountSign: z.enum(['expense-negative', 'expense-positive']).default('expense-negative'),
}).refine((m) => m.amount !== undefined || m.debit !== undefined || m.credit !== undefined);

/** The text fields of the import form (beside the `csvFile` file). */
export const ImportFields = z.object({
  mapping: z.string().max(10_000).optional().meta({
    description: 'Which column is which, as JSON (when the columns are not recognised; saved for the next file with the same header)',
    contentMediaType: 'application/json',
    contentSchema: z.toJSONSchema(MappingBody, { io: 'input' }),
  }),
});

function parseMapping(raw: unknown): ColumnMapping | undefined {
  if (raw === undefined || raw === '') return undefined;
  try {
    return MappingBody.parse(JSON.parse(String(raw))) as ColumnMapping;
  } catch {
    throw new ValidationError('The column mapping could not be read', [{ field: 'mapping', message: 'Choose the date, description and amount columns' }], 'bad_mapping');
  }
}

/**
 * The mapping a company last saved for a header: the last event of the header's own stream,
 * found with point reads; else, for mappings saved before those streams, the company's old one.
 */
async function savedMapping(bus: CommandBus, companyId: string, headerKey: string): Promise<ColumnMapping | null> {
  const stream = columnMappingStream(companyId, headerKey);
  const last = await lastRevision(bus.events, stream);
  if (last >= 0) {
    const [saved] = await bus.events.readStream(stream, { fromRevision: last, maxCount: 1 });
    if (saved) return (saved.data as { mapping: ColumnMapping }).mapping;
  }
  const events = await bus.events.readStream(mappingStream(companyId));
  for (let i = events.length - 1; i >= 0; i--) {
    const data = events[i]!.data as { headerKey: string; mapping: ColumnMapping };
    if (data.headerKey === headerKey) return data.mapping;
  }
  return null;
}

/**
 * POST /transactions/import (multipart `csvFile`): one command per file. The events carry the
 * file's hash; on the embedded store all rows land in one atomic append or none do, on
 * EventStoreDB in the order of import-plan.ts, which a retry completes.
 */
export function importRouter(deps: ImportDeps): Router {
  const { bus } = deps;
  const router = Router();
  /** The ledger revision last seen per company (a hint for lastRevision). */
  const ledgerHints = new Map<string, number>();

  router.post('/transactions/import', requireCompany(), (req, res, next) => {
    upload.single('csvFile')(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError) {
        const message = err.code === 'LIMIT_FILE_SIZE' ? 'The file is larger than 25 MB. Split the statement and import the parts.' : 'Send one CSV file in the csvFile field.';
        next(new ValidationError(message, undefined, err.code === 'LIMIT_FILE_SIZE' ? 'file_too_large' : 'bad_upload'));
      } else next(unreadableUpload(err));
    });
  }, async (req, res) => {
    const file = req.file;
    if (!file) throw new ValidationError('Please select a CSV file', [{ field: 'csvFile', message: 'Please select a CSV file' }], 'file_required');
    if (!/\.csv$/i.test(file.originalname)) throw new ValidationError('Please select a CSV file', [{ field: 'csvFile', message: 'Please select a CSV file' }], 'not_csv');
    const ctx = res.locals.ctx as { companyId: string; userId: string; role: Role };
    const bodyMapping = parseMapping(ImportFields.parse(req.body ?? {}).mapping);
    if (deps.stager && file.size >= (deps.stageBytes ?? DEFAULT_STAGE_BYTES)) {
      const parts = { savedMapping: (companyId: string, headerKey: string) => savedMapping(bus, companyId, headerKey), mappingRequired: (needs: unknown) => new MappingRequired(needs) };
      return stagedImport(req, res, { ...deps, stager: deps.stager }, parts, file, bodyMapping, ledgerHints);
    }
    const fileHash = importFileKey(createHash('sha256').update(file.buffer).digest('hex'), ctx);
    const maxRows = deps.maxRows ?? DEFAULT_MAX_IMPORT_ROWS;
    let parsed = await deps.parsers.statement(file.buffer, { ...(bodyMapping ? { mapping: bodyMapping } : {}), maxRows });
    let mapping = bodyMapping;
    if (parsed.needsMapping) {
      const saved = await savedMapping(bus, ctx.companyId, parsed.headerKey);
      if (!saved) throw new MappingRequired({ ...parsed.needsMapping, headerKey: parsed.headerKey });
      mapping = saved;
      parsed = await deps.parsers.statement(file.buffer, { mapping: saved, maxRows });
    }
    // Rows are assigned by the members the read model holds: when these bytes are not known to
    // be imported already (the claim, write side), only once it holds every event so far (else 503).
    if (!(await fileClaimed(bus.events, ctx.companyId, fileHash))) await readSideCurrent(bus, ctx.companyId, deps.decisionPosition);
    // A non-admin's rows are always her own, and her answer names no other member.
    const { members, fallbackId } = importAssignees(await deps.members(ctx.companyId), ctx);
    // Each row is assigned on its own, so chunks give the same answer with turns of the event loop between.
    const assignment = { details: (await chunksInSlices(parsed.rows, 5000, (part) => assignRowsToMembers(part, members, fallbackId))).flatMap((p) => p.details) };
    const rows = await mapInSlices(parsed.rows, (r, i) => candidateRow(r, assignment.details[i]!));
    const names = new Map(members.map((m) => [m.userId, `${m.firstName} ${m.lastName}`.trim()]));
    // The screen shows who each row went to; the events keep the user id.
    const withNames = (m: { details: Array<{ assignedTo: string }> }) => ({ ...m, details: m.details.map((d) => ({ ...d, assignedToName: names.get(d.assignedTo) ?? null })) });
    const importId = newId();
    const newIds = await mapInSlices(rows, () => newId());
    await send(req, res, bus, async (c): Promise<Plan> => {
      // The same bytes: from the file's claim (write side). Imports of one company go one at a
      // time (the ledger's revision, found without reading the ledger), and each decides on the
      // read model only once it holds every event so far (else 503): de-duplication is never off.
      const ledger = await readLedger(bus.events, c.companyId!, fileHash, ledgerHints);
      // An import of this file taken and not finished (EventStoreDB: stopped half-way) is completed (import-plan.ts).
      const resume = await resumeOf(bus.events, ledger, c.companyId!, c.userId!);
      const id = resume?.importId ?? importId;
      if (!ledger.alreadyImported) await readSideCurrent(bus, c.companyId!, deps.decisionPosition);
      const existingKeys = ledger.alreadyImported ? new Map<string, number>() : await deps.existingKeys(c.companyId!, rows.map((r) => r.dedupKey), dedupOwner(ctx));
      const decided = decideImport(
        { importId: id, companyId: c.companyId!, importedBy: c.userId!, fileName: file.originalname, fileHash, layout: parsed.layout, rows, rowErrors: parsed.rowErrors.map((e) => ({ row: e.row, reason: e.reason })), existingKeys, newIds },
        { fileHashes: ledger.alreadyImported ? { [fileHash]: id } : {} },
      );
      const base = { importId: id, companyId: c.companyId!, fileName: file.originalname, fileHash, importedBy: c.userId!, layout: parsed.layout };
      const { events, result } = resume ? completeImport(decided, resume, base) : decided;
      return {
        status: 200,
        ...importAnswerWait(result.imported, deps),
        appends: importAppends({ companyId: c.companyId!, importId: id, fileHash, importedBy: c.userId! }, events, ledger, mapping && bodyMapping ? { headerKey: parsed.headerKey, mapping } : undefined, resume),
        body: { ...result, userMatching: withNames(result.userMatching), fileName: file.originalname, fileHash, layout: parsed.layout, ignoredRows: parsed.ignoredRows.length, message: `Import completed! ${result.imported} transactions imported` },
      };
    });
  });

  return router;
}
