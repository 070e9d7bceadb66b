import { Router } from 'express';
import { NotFoundError, type MasterKind, type ReadStore, type RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { MasterKindParam } from '@paperlink/domain/http/params';
import { listMasterItems } from '@paperlink/projections';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;

export function parseKind(value: string): MasterKind {
  const kind = MasterKindParam.safeParse(value);
  if (!kind.success) throw new NotFoundError(`No such list: ${value.slice(0, 100)}`, 'no_such_list');
  return kind.data;
}

/** Master data lists: every member reads them (edit dropdowns); only admins change them. */
export function masterDataQueryRouter(store: ReadStore): Router {
  const router = Router();
  router.get('/masterdata/:kind', requireCompany(), async (req, res) => {
    const kind = parseKind(String(req.params.kind));
    res.json(await listMasterItems(store, ctxOf(res).companyId!, kind));
  });
  return router;
}
