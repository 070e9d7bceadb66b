import { companyStream, type CompanyEvent, type Doc, type ReadStore, type RecordedEvent, type Role } from '@paperlink/domain';
import type { Projection } from '../core/projection';

export const COMPANIES = 'companies';
export const MEMBERSHIPS = 'memberships';

export interface CompanyDoc extends Doc {
  name: string;
  domain: string | null;
  planType: string;
  createdAt: string;
  updatedAt: string;
  userCount: number;
  /** Events in the company's stream (what PUT /companies/current writes): its ETag, what an If-Match names. */
  revision?: number;
}

export interface MembershipDoc extends Doc {
  companyId: string;
  userId: string;
  role: Role;
  joinedAt: string;
  /** The names the member's card lines carry, as an admin set them (imports assign by these only). */
  statementNames?: string[];
}

export const membershipId = (companyId: string, userId: string) => `${companyId}:${userId}`;

export function evolveCompany(doc: CompanyDoc | null, event: CompanyEvent, occurredAt: string): CompanyDoc | null {
  switch (event.type) {
    case 'CompanyRegistered':
      return { _id: event.data.companyId, name: event.data.name, domain: null, planType: event.data.planType, createdAt: event.data.createdAt, updatedAt: event.data.createdAt, userCount: 0 };
    case 'CompanyUpdated':
      return doc && { ...doc, name: event.data.name, domain: event.data.domain, updatedAt: event.data.updatedAt };
    case 'MemberJoined':
      return doc && { ...doc, userCount: doc.userCount + 1, updatedAt: occurredAt };
    case 'MemberRemoved':
      return doc && { ...doc, userCount: Math.max(0, doc.userCount - 1), updatedAt: occurredAt };
    case 'MemberRoleChanged':
    case 'MemberStatementNamesSet':
      return doc;
  }
}

export function evolveMembership(doc: MembershipDoc | null, event: CompanyEvent): MembershipDoc | null {
  switch (event.type) {
    case 'MemberJoined':
      return { _id: membershipId(event.data.companyId, event.data.userId), companyId: event.data.companyId, userId: event.data.userId, role: event.data.role, joinedAt: event.data.joinedAt, ...(event.data.statementNames ? { statementNames: event.data.statementNames } : {}) };
    case 'MemberRoleChanged':
      return doc && { ...doc, role: event.data.role };
    case 'MemberRemoved':
      return null;
    case 'MemberStatementNamesSet':
      return doc && { ...doc, statementNames: event.data.names };
    default:
      return doc;
  }
}

export const companiesProjection: Projection = {
  name: 'companies',
  // 2: revision (the company stream's, for ETag / If-Match).
  version: 2,
  collections: { [COMPANIES]: [], [MEMBERSHIPS]: [['companyId'], ['userId']] },
  handles: new Set(['CompanyRegistered', 'CompanyUpdated', 'MemberJoined', 'MemberRoleChanged', 'MemberRemoved', 'MemberStatementNamesSet']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as CompanyEvent;
    const own = event.streamId === companyStream(e.data.companyId);
    await view.update<CompanyDoc>(COMPANIES, e.data.companyId, (doc) => {
      const next = evolveCompany(doc, e, event.metadata.occurredAt);
      return next && own ? { ...next, revision: event.revision + 1 } : next;
    });
    if (e.type !== 'CompanyRegistered' && e.type !== 'CompanyUpdated') {
      await view.update<MembershipDoc>(MEMBERSHIPS, membershipId(e.data.companyId, e.data.userId), (doc) => evolveMembership(doc, e));
    }
  },
};

export async function getMembership(store: ReadStore, companyId: string, userId: string): Promise<MembershipDoc | null> {
  return store.collection<MembershipDoc>(MEMBERSHIPS).findOne({ _id: membershipId(companyId, userId) });
}

export async function membershipsOfUser(store: ReadStore, userId: string): Promise<MembershipDoc[]> {
  return store.collection<MembershipDoc>(MEMBERSHIPS).find({ userId }, { sort: { joinedAt: 1 } });
}

export async function membersOfCompany(store: ReadStore, companyId: string): Promise<MembershipDoc[]> {
  return store.collection<MembershipDoc>(MEMBERSHIPS).find({ companyId }, { sort: { joinedAt: 1 } });
}

export async function getCompanies(store: ReadStore, ids: string[]): Promise<Map<string, CompanyDoc>> {
  const docs = await store.collection<CompanyDoc>(COMPANIES).find({ _id: { $in: ids } });
  return new Map(docs.map((d) => [d._id, d]));
}
