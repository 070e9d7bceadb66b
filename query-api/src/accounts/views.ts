import type { CompanyView, ReadStore, Role } from '@paperlink/domain';
import { activeSessionsOfUser, COMPANY_STATS, getCompanies, getMembership, getUser, getUsers, membershipsOfUser, type CompanyDoc, type CompanyStatsDoc } from '@paperlink/projections';

export type { CompanyView };

function companyView(doc: CompanyDoc, role: Role, stats?: CompanyStatsDoc): CompanyView {
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  return {
    id: doc._id,
    name: doc.name,
    role,
    domain: doc.domain,
    planType: doc.planType,
    userCount: doc.userCount,
    transactionCount: n(stats?.transactionCount),
    receiptCount: n(stats?.receiptCount),
    matchRate: n(stats?.matchRate),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    revision: doc.revision ?? 0,
  };
}

/** Read-side views of users and companies, shared by queries and command replies. */
export function accountViews(store: ReadStore) {
  const statsOf = async (ids: string[]) =>
    new Map((await store.collection<CompanyStatsDoc>(COMPANY_STATS).find({ _id: { $in: ids } })).map((s) => [s._id, s]));

  async function companies(userId: string): Promise<CompanyView[]> {
    const memberships = await membershipsOfUser(store, userId);
    const ids = memberships.map((m) => m.companyId);
    const [docs, stats] = await Promise.all([getCompanies(store, ids), statsOf(ids)]);
    return memberships.flatMap((m) => {
      const doc = docs.get(m.companyId);
      return doc ? [companyView(doc, m.role, stats.get(m.companyId))] : [];
    });
  }

  return {
    companies,
    async company(companyId: string, userId: string): Promise<CompanyView | null> {
      const m = await getMembership(store, companyId, userId);
      if (!m) return null;
      const doc = (await getCompanies(store, [companyId])).get(companyId);
      return doc ? companyView(doc, m.role, (await statsOf([companyId])).get(companyId)) : null;
    },
    async user(userId: string, currentCompanyId?: string) {
      const user = await getUser(store, userId);
      if (!user) return null;
      const list = (await companies(userId)).map((c) => ({ id: c.id, name: c.name, role: c.role }));
      const current = list.find((c) => c.id === currentCompanyId) ?? list[0] ?? null;
      return {
        id: user._id,
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        emailVerified: user.emailVerified,
        lastLogin: user.lastLogin,
        memberSince: user.memberSince,
        currentRole: current?.role ?? null,
        currentCompany: current,
        companies: list,
      };
    },
    async member(companyId: string, userId: string) {
      const m = await getMembership(store, companyId, userId);
      const u = m && (await getUser(store, userId));
      return m && u ? { id: userId, firstName: u.firstName, lastName: u.lastName, email: u.email, role: m.role } : null;
    },
    async activeSessions(userId: string, now: string): Promise<string[]> {
      return (await activeSessionsOfUser(store, userId, now)).map((s) => s._id);
    },
    async members(companyId: string) {
      const memberships = await store.collection('memberships').find({ companyId }, { sort: { joinedAt: 1 } });
      const users = await getUsers(store, memberships.map((m) => m.userId as string));
      return memberships.flatMap((m) => {
        const u = users.get(m.userId as string);
        return u ? [{ id: u._id, firstName: u.firstName, lastName: u.lastName, email: u.email, role: m.role as Role, joinedAt: m.joinedAt as string, lastLogin: u.lastLogin }] : [];
      });
    },
  };
}

export type AccountViewsImpl = ReturnType<typeof accountViews>;
