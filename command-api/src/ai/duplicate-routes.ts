/**
 * Duplicates of transactions and receipts: the check of one record, groups and their status,
 * and the batch of 100. Groups are events; a dismissed pair is never raised again.
 */
import type { Router } from 'express';
import { NotFoundError, duplicateGroupDecider, duplicateGroupStream, duplicatePairKey, type DuplicateCandidate, type DuplicateKind, type RequestContext } from '@paperlink/domain';
import type { Plan } from '../core/bus';
import { send } from '../core/http';
import { ctxOf, requireCompany } from '../http/context';
import { BatchBody, GroupListQuery, GroupStatusBody, groupIdOf, groupView, guards, mine, receiptCandidate, scopeOf, txCandidate, type AiLearningDeps } from './learning-core';

export function duplicateRoutes(router: Router, deps: AiLearningDeps): void {
  const member = requireCompany();
  const { requireSwitch } = guards(deps);

  /**
   * Each group decided on its own stream (a group id is its kind and members): a group recorded
   * before decides nothing new, so a retry or a second check records nothing twice.
   */
  const recordGroups = (ctx: RequestContext, kind: DuplicateKind, groups: Array<{ ids: string[]; confidence: number; reasons: string[] }>, ownerOf: Map<string, string>) =>
    Promise.all(groups.map(async (g) => {
      const groupId = groupIdOf(kind, g.ids);
      const h = await deps.bus.handle(duplicateGroupStream(groupId), duplicateGroupDecider,
        { type: 'DetectDuplicateGroup', companyId: ctx.companyId!, groupId, kind, memberIds: g.ids, ownerIds: [...new Set(g.ids.map((i) => ownerOf.get(i) ?? ''))], confidence: g.confidence, reasons: g.reasons });
      return { groupId, isNew: h.events.length > 0, append: h.append };
    }));

  router.post('/ai/duplicates/check/:id', member, async (req, res) => {
    const id = String(req.params.id);
    await send(req, res, deps.bus, async (ctx): Promise<Plan> => {
      await requireSwitch(ctx.companyId!, 'duplicateDetection');
      const scope = scopeOf(ctx);
      const dismissed = [...(await deps.dismissedPairs(ctx.companyId!))];
      const tx = await deps.transaction(ctx.companyId!, id);
      let kind: DuplicateKind;
      let target: DuplicateCandidate | null;
      let others: DuplicateCandidate[];
      const described = new Map<string, Record<string, unknown>>();
      if (tx) {
        if (!mine(ctx, tx.userId)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
        kind = 'transaction';
        target = txCandidate(tx);
        const all = await deps.transactions(ctx.companyId!, scope, tx.amountCents);
        others = all.filter((t) => t.id !== id).map(txCandidate);
        for (const t of all) described.set(t.id, { id: t.id, transaction_date: t.date, description: t.description, amount: t.amountCents / 100, category_name: t.categoryName });
      } else {
        const r = await deps.receipt(ctx.companyId!, id);
        if (!r || !mine(ctx, r.userId)) throw new NotFoundError('Transaction or receipt not found', 'not_found');
        kind = 'receipt';
        target = receiptCandidate(r);
        const all = target ? await deps.receipts(ctx.companyId!, scope, target.amountCents) : [];
        others = all.filter((x) => x.id !== id).map(receiptCandidate).filter((x): x is DuplicateCandidate => x !== null);
        for (const x of all) described.set(x.id, { id: x.id, original_filename: x.fileName, extracted_date: x.date, extracted_amount: x.amountCents === null ? null : x.amountCents / 100, extracted_merchant: x.merchant });
      }
      const sameAmount = target ? others.filter((o) => o.amountCents === target.amountCents) : [];
      let recurring: Array<[string, string]> = [];
      if (kind === 'transaction' && target && sameAmount.length > 0) {
        const patterns = await deps.recurring([target, ...sameAmount].map((c) => ({ id: c.id, date: c.date, amountCents: c.amountCents, description: c.description })));
        recurring = patterns.flatMap((p) => p.memberIds.map((m): [string, string] => [m, p.id]));
      }
      const pairs = target ? await deps.duplicatesOf(target, sameAmount, { dismissed, recurring }) : [];
      const ownerOf = new Map<string, string>([[id, tx?.userId ?? ''], ...others.map((o): [string, string] => [o.id, o.ownerId ?? ''])]);
      if (kind === 'receipt') {
        const r = await deps.receipt(ctx.companyId!, id);
        ownerOf.set(id, r?.userId ?? '');
      }
      const confidence = pairs.reduce((m, p) => Math.max(m, p.confidence), 0);
      const group = pairs.length > 0 ? (await recordGroups(ctx, kind, [{ ids: [id, ...pairs.map((p) => p.b)], confidence, reasons: pairs[0]?.reasons ?? [] }], ownerOf))[0] : undefined;
      const duplicates = pairs.map((p) => ({ ...(described.get(p.b) ?? { id: p.b }), confidence: p.confidence, reasons: p.reasons }));
      return {
        appends: group ? [group.append] : [],
        body: {
          duplicateAnalysis: {
            isDuplicate: pairs.length > 0,
            kind,
            confidence,
            groupId: group?.groupId ?? null,
            duplicates,
            ...(kind === 'transaction' ? { similarTransactions: duplicates } : {}),
          },
        },
      };
    });
  });

  router.get('/ai/duplicates/groups', member, async (req, res) => {
    const ctx = ctxOf(res);
    const q = GroupListQuery.parse(req.query ?? {});
    const groups = await deps.groups(ctx.companyId!, scopeOf(ctx), q.status);
    res.json({ groups: groups.map(groupView) });
  });

  router.put('/ai/duplicates/groups/:id', member, async (req, res) => {
    const id = String(req.params.id);
    const b = GroupStatusBody.parse(req.body ?? {});
    await send(req, res, deps.bus, async (ctx): Promise<Plan> => {
      // Decided on the group's own stream: who may see it and its pairs come from its events.
      const h = await deps.bus.handle(duplicateGroupStream(id), duplicateGroupDecider, (g) => {
        const visible = g.status !== 'none' && g.companyId === ctx.companyId && (ctx.role === 'admin' || (g.ownerIds.length > 0 && g.ownerIds.every((o) => o === ctx.userId)));
        if (!visible) throw new NotFoundError('Duplicate group not found', 'duplicate_group_not_found');
        const pairKeys: string[] = [];
        for (let i = 0; i < g.memberIds.length; i++) for (let j = i + 1; j < g.memberIds.length; j++) pairKeys.push(duplicatePairKey(g.memberIds[i]!, g.memberIds[j]!));
        return { type: 'ResolveDuplicateGroup' as const, companyId: ctx.companyId!, groupId: id, userId: ctx.userId!, status: b.status, pairKeys };
      });
      return { appends: [h.append], body: { success: true } };
    }, undefined, {
      // The group as the read model shows it once the decision is projected.
      answer: async (ctx) => {
        const g = await deps.group(ctx.companyId!, id);
        return { group: g && groupView(g) };
      },
    });
  });

  /** Batch duplicate processing (spec section 9: 100 items): the newest records in scope, each checked against all. */
  router.post('/ai/duplicates/batch', member, async (req, res) => {
    const b = BatchBody.parse(req.body ?? {});
    await send(req, res, deps.bus, async (ctx): Promise<Plan> => {
      await requireSwitch(ctx.companyId!, 'duplicateDetection');
      const scope = scopeOf(ctx);
      const dismissed = [...(await deps.dismissedPairs(ctx.companyId!))];
      const records = b.kind === 'transaction'
        ? (await deps.transactions(ctx.companyId!, scope)).map(txCandidate)
        : (await deps.receipts(ctx.companyId!, scope)).map(receiptCandidate).filter((x): x is DuplicateCandidate => x !== null);
      const targets = [...records].sort((x, y) => y.date.localeCompare(x.date) || x.id.localeCompare(y.id)).slice(0, b.limit);
      const targetIds = new Set(targets.map((t) => t.id));
      const amounts = new Set(targets.map((t) => t.amountCents));
      const candidates = records.filter((r) => amounts.has(r.amountCents));
      const recurring = b.kind === 'transaction'
        ? (await deps.recurring(candidates.map((c) => ({ id: c.id, date: c.date, amountCents: c.amountCents, description: c.description })))).flatMap((p) => p.memberIds.map((m): [string, string] => [m, p.id]))
        : [];
      const found = (await deps.duplicateGroups(candidates, { dismissed, recurring })).filter((g) => g.ids.some((i) => targetIds.has(i)));
      const ownerOf = new Map(records.map((r) => [r.id, r.ownerId ?? '']));
      const recorded = await recordGroups(ctx, b.kind, found, ownerOf);
      return {
        appends: recorded.map((r) => r.append),
        body: {
          results: {
            processed: targets.length,
            duplicatesFound: found.length,
            newGroups: recorded.filter((r) => r.isNew).length,
            groups: found.map((g, i) => ({ id: recorded[i]?.groupId, memberIds: g.ids, confidence_score: g.confidence })),
          },
        },
      };
    });
  });
}
