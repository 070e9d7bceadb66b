import { randomUUID } from 'node:crypto';
import { newId } from '@paperlink/command-api';
import type { EventMetadata, StreamAppend } from '@paperlink/domain';

/**
 * A synthetic but realistic history: companies with members, profile changes, sign-ins,
 * refreshes and role changes, in the same event shapes the product writes.
 */
export function* syntheticHistory(total: number): Generator<StreamAppend[]> {
  let produced = 0;
  const companies: Array<{ id: string; members: string[] }> = [];
  const users: string[] = [];
  let seed = 1;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const meta = (companyId?: string, userId?: string): EventMetadata => ({
    ...(companyId ? { companyId } : {}),
    ...(userId ? { userId } : {}),
    requestId: randomUUID(),
    correlationId: randomUUID(),
    causationId: randomUUID(),
    occurredAt: new Date(1_700_000_000_000 + produced * 1000).toISOString(),
  });
  const ev = (type: string, data: unknown, m: EventMetadata) => ({ id: randomUUID(), type, data, metadata: m });
  while (produced < total) {
    const roll = rand();
    const now = new Date(1_700_000_000_000 + produced * 1000).toISOString();
    if (users.length < 50 || roll < 0.05) {
      const userId = newId();
      const companyId = newId();
      const sessionId = newId();
      const m = meta(companyId, userId);
      users.push(userId);
      companies.push({ id: companyId, members: [userId] });
      produced += 5;
      yield [
        { streamId: `email-${userId}`, expectedRevision: 'no_stream', events: [ev('EmailClaimed', { email: `${userId}@example.com`, userId }, m)] },
        { streamId: `user-${userId}`, expectedRevision: 'no_stream', events: [ev('UserRegistered', { userId, email: `${userId}@example.com`, firstName: 'Syn', lastName: 'Thetic', passwordHash: 'x', registeredAt: now }, m)] },
        { streamId: `company-${companyId}`, expectedRevision: 'no_stream', events: [ev('CompanyRegistered', { companyId, name: 'Synthetic Co', planType: 'BASIC', createdBy: userId, createdAt: now }, m), ev('MemberJoined', { companyId, userId, role: 'admin', joinedAt: now }, m)] },
        { streamId: `session-${sessionId}`, expectedRevision: 'no_stream', events: [ev('SessionStarted', { sessionId, userId, startedAt: now, expiresAt: now }, m)] },
      ];
      continue;
    }
    const userId = users[Math.floor(rand() * users.length)]!;
    const company = companies[Math.floor(rand() * companies.length)]!;
    const m = meta(company.id, userId);
    const batch: StreamAppend[] = [];
    for (let k = 0; k < 50 && produced < total; k++) {
      const r = rand();
      produced += 1;
      if (r < 0.4) {
        const sessionId = newId();
        batch.push({ streamId: `session-${sessionId}`, expectedRevision: 'any', events: [ev('SessionStarted', { sessionId, userId, startedAt: now, expiresAt: now }, m)] });
      } else if (r < 0.7) {
        batch.push({ streamId: `user-${userId}`, expectedRevision: 'any', events: [ev('UserLoggedIn', { userId, sessionId: randomUUID(), at: now }, m)] });
      } else if (r < 0.85) {
        batch.push({ streamId: `user-${userId}`, expectedRevision: 'any', events: [ev('UserProfileUpdated', { userId, firstName: `F${produced}`, lastName: 'L' }, m)] });
      } else if (r < 0.95 && !company.members.includes(userId)) {
        company.members.push(userId);
        batch.push({ streamId: `company-${company.id}`, expectedRevision: 'any', events: [ev('MemberJoined', { companyId: company.id, userId, role: 'user', joinedAt: now }, m)] });
      } else {
        batch.push({ streamId: `company-${company.id}`, expectedRevision: 'any', events: [ev('CompanyUpdated', { companyId: company.id, name: `Co ${produced}`, domain: null, updatedAt: now }, m)] });
      }
    }
    yield batch;
  }
}
