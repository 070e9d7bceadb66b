import { Router } from 'express';
import multer from 'multer';
import { z } from 'zod';
import {
  amountToCents,
  calendarDecider,
  calendarStream,
  CALENDAR_MAX_BYTES,
  masterStream,
  receiptStream,
  ConflictError,
  masterDataDecider,
  proposeSplit,
  splitDecider,
  splitStream,
  ValidationError,
  type MasterDataState,
  type ParsedCalendar,
  type ReceiptEvent,
  type RequestContext,
  type SplitMode,
  type SplitPartInput,
  type SplitProposal,
} from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import { newId } from '../core/ids';
import { requireCompany } from '../http/context';
import { validIdParams } from '../http/params';
import { unreadableUpload } from '../http/uploads';
import { loadTransaction, type TransactionDeps } from '../transactions/routes';

export interface SplitCalendarDeps extends Pick<TransactionDeps, 'bus' | 'events' | 'locator'> {
  /** The receipt matched to a transaction (confirmed first, else the best pending suggestion) that the caller may see. */
  matchedReceipt(companyId: string, transactionId: string, scope: { userId?: string }): Promise<string | null>;
  /** Whether the company has the AI features on (settings). */
  aiEnabled(companyId: string): Promise<boolean>;
  /** iCalendar parsing, off the request thread (infra's worker pool). */
  parseCalendar(bytes: Uint8Array, now: string): Promise<ParsedCalendar>;
}

const name = z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string().max(200, 'Names are at most 200 characters'));
export const SplitPartBody = z.object({
  amount: z.union([z.number(), z.string()]).optional().meta({ description: 'The part in dollars (mode amount); signed like the transaction, or all parts positive for an expense' }),
  percentage: z.union([z.number(), z.string()]).optional().meta({ description: 'The share in percent, at most two decimals (mode percentage)' }),
  category: name.meta({ description: 'A category name of the master data' }),
  job_number: name.meta({ description: 'A job number of the master data' }),
  cost_code: name.meta({ description: 'A cost code of the master data' }),
  note: z.string().max(200).optional(),
});
export const SplitBody = z.object({
  mode: z.enum(['amount', 'percentage'], { error: 'mode is amount or percentage' }).default('amount'),
  parts: z.array(SplitPartBody).max(50, 'A split has at most 50 parts').optional()
    .meta({ description: 'The split to save; without it the server proposes one (from the matched receipt\'s item lines, else an even split)' }),
  save: z.boolean().optional().meta({ description: 'Without parts: save the proposal (default false: only propose)' }),
}).meta({ description: 'Propose and/or save a split. Answer: { proposal?, saved, split } where split is GET /ai/splitting/{id}.' });

/** Master data names of the company from the write side. */
function masterNames(state: MasterDataState) {
  const names = (kind: keyof MasterDataState['items']) => [...state.items[kind].values()].map((i) => i.name);
  const categoryName = new Map([...state.items.categories].map(([id, c]) => [id, c.name]));
  return {
    categories: names('categories'),
    jobNumbers: names('job_numbers'),
    costCodes: [...state.items.cost_codes.values()].map((c) => ({ name: c.name, category: categoryName.get(c.categoryId ?? '') ?? '' })),
  };
}

const lowerSet = (xs: readonly string[]) => new Set(xs.map((x) => x.trim().toLowerCase()));

/** Parts as the body gives them, to the domain's input (cents or basis points). */
function partsOf(mode: SplitMode, parts: z.infer<typeof SplitPartBody>[], totalCents: number): SplitPartInput[] {
  const out = parts.map((p, i): SplitPartInput => {
    const base = { category: p.category, jobNumber: p.job_number, costCode: p.cost_code, ...(p.note ? { note: p.note } : {}) };
    if (mode === 'percentage') {
      const bp = p.percentage === undefined ? null : amountToCents(p.percentage);
      if (bp === null) throw new ValidationError(`Part ${i + 1}: the percentage must be a number with at most two decimals`, [{ field: `parts[${i}].percentage`, message: 'A number with at most two decimals' }], 'invalid_split');
      return { ...base, basisPoints: bp };
    }
    const cents = p.amount === undefined ? null : amountToCents(p.amount);
    if (cents === null) throw new ValidationError(`Part ${i + 1}: the amount must be a number with at most two decimals`, [{ field: `parts[${i}].amount`, message: 'A number with at most two decimals' }], 'invalid_split');
    return { ...base, amountCents: cents };
  });
  // People type an expense's parts as positive amounts: they are parts of the expense.
  if (mode === 'amount' && totalCents < 0 && out.every((p) => (p.amountCents ?? 0) > 0)) for (const p of out) p.amountCents = -p.amountCents!;
  return out;
}

/** The OCR text of a receipt's latest reading (the write side's own record). */
async function receiptText(bus: CommandBus, companyId: string, receiptId: string): Promise<string | null> {
  const recorded = await bus.events.readStream(receiptStream(receiptId));
  let text: string | null = null;
  for (const r of recorded as unknown as ReceiptEvent[]) {
    if (r.type === 'ReceiptRead' && r.data.companyId === companyId) text = r.data.text;
    if (r.type === 'ReceiptDeleted') text = null;
  }
  return text;
}

/** Splitting (propose, save, remove) and calendar uploads. Reads are in query-api/src/ai/analyses.ts. */
export function splitCalendarRouter(deps: SplitCalendarDeps): Router {
  const { bus } = deps;
  const router = validIdParams(Router());
  const company = requireCompany();
  const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

  router.post('/ai/splitting/:id', company, async (req, res) => {
    const id = String(req.params.id);
    const body = SplitBody.parse(req.body ?? {});
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const t = await loadTransaction(deps, ctx.companyId!, id);
      const transaction = { ownerId: t.state.ownerId, amountCents: t.state.fields.amountCents, deleted: t.state.status === 'deleted' };
      const master = masterNames((await bus.load(masterStream(ctx.companyId!), masterDataDecider)).state);
      const names = { categories: lowerSet(master.categories), jobNumbers: lowerSet(master.jobNumbers), costCodes: lowerSet(master.costCodes.map((c) => c.name)) };
      const base = { type: 'SaveSplit' as const, transactionId: id, companyId: ctx.companyId!, actorId: ctx.userId!, role: ctx.role!, transaction, names };
      let proposal: SplitProposal | undefined;
      let command;
      if (body.parts) {
        command = { ...base, mode: body.mode, source: 'manual' as const, parts: partsOf(body.mode, body.parts, transaction.amountCents) };
      } else {
        // Check the caller may see the transaction before reading its receipt.
        splitDecider.decide({ type: 'RemoveSplit', transactionId: id, companyId: ctx.companyId!, actorId: ctx.userId!, role: ctx.role!, transaction }, { parts: null, mode: null, totalCents: null });
        if (!(await deps.aiEnabled(ctx.companyId!))) throw new ConflictError("The AI features are switched off in this company's settings: give the parts of the split yourself.", 'ai_disabled');
        const receiptId = await deps.matchedReceipt(ctx.companyId!, id, scopeOf(ctx));
        const text = receiptId ? await receiptText(bus, ctx.companyId!, receiptId) : null;
        proposal = proposeSplit({
          amountCents: transaction.amountCents, category: t.state.fields.category, jobNumber: t.state.fields.jobNumber, costCode: t.state.fields.costCode,
          ...master, receipt: receiptId && text !== null ? { id: receiptId, text } : null,
        });
        command = { ...base, mode: proposal.source === 'even' ? 'percentage' as const : 'amount' as const, source: proposal.source, ...(proposal.receiptId ? { receiptId: proposal.receiptId } : {}), parts: proposal.parts };
      }
      const save = body.parts !== undefined || body.save === true;
      // Only a save decides; a proposal reads the split as it is.
      const h = save ? await bus.handle(splitStream(id), splitDecider, command) : undefined;
      const after = h ? h.after : (await bus.load(splitStream(id), splitDecider)).state;
      const proposed = proposal && {
        source: proposal.source,
        receipt_id: proposal.receiptId ?? null,
        details: proposal.details,
        parts: proposal.parts.map((p) => ({ amount: (p.amountCents ?? 0) / 100, percentage: p.basisPoints === undefined ? null : p.basisPoints / 100, category_name: p.category, job_number_name: p.jobNumber, cost_code_name: p.costCode })),
        items: proposal.items.map((i) => ({ text: i.text, amount: i.amountCents / 100, category_name: i.category })),
      };
      return {
        appends: h ? [h.append] : [],
        body: {
          ...(proposed ? { proposal: proposed } : {}),
          saved: save,
          changed: (h?.events.length ?? 0) > 0,
          split: {
            transaction_id: id,
            amount: transaction.amountCents / 100,
            is_split: after.parts !== null,
            mode: after.mode,
            parts: (after.parts ?? []).map((p) => ({ amount: p.amountCents / 100, percentage: p.basisPoints === undefined ? null : p.basisPoints / 100, category_name: p.category, job_number_name: p.jobNumber, cost_code_name: p.costCode, note: p.note ?? null })),
          },
        },
      };
    });
  });

  router.delete('/ai/splitting/:id', company, async (req, res) => {
    const id = String(req.params.id);
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const t = await loadTransaction(deps, ctx.companyId!, id);
      const h = await bus.handle(splitStream(id), splitDecider, { type: 'RemoveSplit', transactionId: id, companyId: ctx.companyId!, actorId: ctx.userId!, role: ctx.role!, transaction: { ownerId: t.state.ownerId, deleted: t.state.status === 'deleted' } });
      return { appends: [h.append], body: { success: true, removed: h.events.length > 0 } };
    });
  });

  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: CALENDAR_MAX_BYTES, files: 1, fields: 5 } });
  router.post('/ai/calendar/upload', company, (req, res, next) => {
    upload.single('calendar')(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError && err.code === 'LIMIT_FILE_SIZE') next(new ValidationError('The calendar file must be less than 5MB.', undefined, 'file_too_large'));
      else if (err instanceof multer.MulterError) next(new ValidationError('Send one iCalendar (.ics) file in the calendar field.', undefined, 'bad_upload'));
      else next(unreadableUpload(err));
    });
  }, async (req, res) => {
    const file = req.file;
    if (!file) throw new ValidationError('Please select an iCalendar (.ics) file to upload.', undefined, 'file_required');
    const ctx = res.locals.ctx as RequestContext;
    const parsed = await deps.parseCalendar(file.buffer, ctx.now.toISOString());
    await send(req, res, bus, async (c): Promise<Plan> => {
      const h = await bus.handle(calendarStream(c.companyId!, c.userId!), calendarDecider, { type: 'ImportCalendar', companyId: c.companyId!, userId: c.userId!, fileName: file.originalname, parsed, newId });
      const d = h.events[0]!.data as Extract<(typeof h.events)[number], { type: 'CalendarImported' }>['data'];
      return {
        status: 201,
        appends: [h.append],
        body: {
          calendar: { id: d.calendarId, fileName: d.fileName, name: d.calendarName, events: d.entries.length, recurringOccurrences: d.entries.filter((e) => e.recurring).length, skipped: d.skipped, truncated: d.truncated, replaced: d.replaced },
          message: `${d.entries.length} calendar events imported`,
        },
      };
    });
  });

  router.delete('/ai/calendar/calendars/:id', company, async (req, res) => {
    const calendarId = String(req.params.id);
    await send(req, res, bus, async (c): Promise<Plan> => {
      const h = await bus.handle(calendarStream(c.companyId!, c.userId!), calendarDecider, { type: 'RemoveCalendar', companyId: c.companyId!, userId: c.userId!, calendarId });
      return { appends: [h.append], body: { success: true, message: 'Calendar removed' } };
    });
  });

  return router;
}
