import { Router } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { importOutcome, masterDataDecider, MASTER_CSV_MAX_BYTES, NotFoundError, ValidationError, type MasterKind } from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import type { CsvParsers } from '../core/parsers';
import { newId } from '../core/ids';
import { requireCompany } from '../http/context';
import { MasterItemParams, MasterKindParam, MasterKindParams, validIdParams } from '../http/params';
import { unreadableUpload } from '../http/uploads';

import { masterStream } from '@paperlink/domain';
export { masterStream };

export interface MasterDataDeps {
  bus: CommandBus;
  /** How many of the company's transactions use an item (from the transactions read model). */
  usage(companyId: string, kind: MasterKind, id: string): Promise<number>;
  /** The item as the list shows it, for replies. */
  item(companyId: string, kind: MasterKind, id: string): Promise<unknown>;
  /** List parsing, off the request thread (infra's worker pool). */
  parsers: Pick<CsvParsers, 'masterData'>;
}

export { MasterItemParams, MasterKindParam, MasterKindParams };

export const MasterItemBody = z.object({
  name: z.preprocess((v) => v ?? '', z.string({ error: 'Name cannot be empty.' }).max(1000, 'Name is too long.')),
  category_id: z.string().max(100).optional().nullable(),
});

function kindOf(value: unknown): MasterKind {
  const kind = MasterKindParam.safeParse(value);
  if (!kind.success) throw new NotFoundError(`No such list: ${String(value).slice(0, 100)}`, 'no_such_list');
  return kind.data;
}

/** Add, update and delete master data items (admin only; the decider checks the role). */
export function masterDataRouter(deps: MasterDataDeps): Router {
  const { bus } = deps;
  const router = validIdParams(Router());
  const company = requireCompany();

  router.post('/masterdata/:kind', company, async (req, res) => {
    const kind = kindOf(req.params.kind);
    const body = MasterItemBody.parse(req.body ?? {});
    const id = newId();
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const h = await bus.handle(masterStream(ctx.companyId!), masterDataDecider, { type: 'AddItem', companyId: ctx.companyId!, role: ctx.role!, kind, id, name: body.name, ...(body.category_id ? { categoryId: body.category_id } : {}) });
      const added = h.after.items[kind].get(id)!;
      const categoryName = added.categoryId ? h.state.items.categories.get(added.categoryId)?.name ?? null : undefined;
      return {
        status: 201,
        appends: [h.append],
        body: { id, name: added.name, ...(added.categoryId ? { category_id: added.categoryId, category_name: categoryName } : {}) },
      };
    });
  });

  router.put('/masterdata/:kind/:id', company, async (req, res) => {
    const kind = kindOf(req.params.kind);
    const id = String(req.params.id);
    const body = MasterItemBody.parse(req.body ?? {});
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const h = await bus.handle(masterStream(ctx.companyId!), masterDataDecider, { type: 'UpdateItem', companyId: ctx.companyId!, role: ctx.role!, kind, id, name: body.name, ...(body.category_id ? { categoryId: body.category_id } : {}) });
      const after = h.after.items[kind].get(id)!;
      const categoryName = after.categoryId ? h.state.items.categories.get(after.categoryId)?.name ?? null : undefined;
      return {
        appends: [h.append],
        body: { id, name: after.name, ...(after.categoryId ? { category_id: after.categoryId, category_name: categoryName } : {}) },
      };
    });
  });

  router.delete('/masterdata/:kind/:id', company, async (req, res) => {
    const kind = kindOf(req.params.kind);
    const id = String(req.params.id);
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const inUse = await deps.usage(ctx.companyId!, kind, id);
      const h = await bus.handle(masterStream(ctx.companyId!), masterDataDecider, { type: 'DeleteItem', companyId: ctx.companyId!, role: ctx.role!, kind, id, inUse });
      return { appends: [h.append], body: { success: true, message: 'Deleted' } };
    });
  });

  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: MASTER_CSV_MAX_BYTES, files: 1 } });
  router.post('/masterdata/:kind/import', company, (req, res, next) => {
    upload.single('csvFile')(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError && err.code === 'LIMIT_FILE_SIZE') next(new ValidationError('File size must be less than 5MB.', undefined, 'file_too_large'));
      else if (err instanceof multer.MulterError) next(new ValidationError('Send one CSV file in the csvFile field.', undefined, 'bad_upload'));
      else next(unreadableUpload(err));
    });
  }, async (req, res) => {
    const kind = kindOf(req.params.kind);
    const file = req.file;
    if (!file) throw new ValidationError('Please select a CSV file to import.', undefined, 'file_required');
    if (!/\.csv$/i.test(file.originalname)) throw new ValidationError('Please upload a CSV file.', undefined, 'not_csv');
    const parsed = await deps.parsers.masterData(file.buffer, kind);
    const newIds = Array.from({ length: parsed.rows.length * 2 }, () => newId());
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const command = { type: 'ImportItems' as const, companyId: ctx.companyId!, role: ctx.role!, kind, fileName: file.originalname, rows: parsed.rows, rowErrors: parsed.errors, newIds };
      const h = await bus.handle(masterStream(ctx.companyId!), masterDataDecider, command);
      const outcome = importOutcome(command, h.state);
      const duplicates = [...parsed.duplicates, ...outcome.details.duplicates].sort((a, b) => a.row - b.row);
      return {
        appends: [h.append],
        body: {
          summary: { ...outcome.summary, skipped: duplicates.length, totalRows: parsed.totalRows },
          details: { duplicates, errors: outcome.details.errors },
        },
      };
    });
  });

  return router;
}
