import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Doc, ReadStore, RecordedEvent } from '@paperlink/domain';
import { allProjections, ProjectionRunner, UnitOfWork } from '@paperlink/projections';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

/** A small seeded generator so the history is random but repeatable. */
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

async function dump(store: ReadStore, collections: string[]): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const c of collections) out[c] = await store.collection(c).find({}, { sort: { _id: 1 } });
  return out;
}

const collections = allProjections().flatMap((p) => Object.keys(p.collections));

let api: Api;
/** What the read models must say, tracked from the commands alone (not from any projector). */
const expected = {
  users: new Map<string, { firstName: string; lastName: string; email: string }>(),
  members: new Map<string, Map<string, string>>(), // companyId -> userId -> role
  companyNames: new Map<string, string>(),
};

beforeAll(async () => {
  api = await startApi();
  const random = rng(7);
  const accounts: Account[] = [];
  for (let i = 0; i < 12; i++) {
    const acc = await registerAccount(api, { firstName: `F${i}`, lastName: `L${i}`, companyName: `Co ${i}` });
    accounts.push(acc);
    expected.users.set(acc.userId, { firstName: `F${i}`, lastName: `L${i}`, email: acc.email });
    expected.members.set(acc.companyId, new Map([[acc.userId, 'admin']]));
    expected.companyNames.set(acc.companyId, `Co ${i}`);
  }
  const pick = () => accounts[Math.floor(random() * accounts.length)]!;
  for (let step = 0; step < 80; step++) {
    const a = pick();
    const b = pick();
    const roll = random();
    const members = expected.members.get(a.companyId)!;
    if (roll < 0.25) {
      const first = `N${step}`;
      await api.http.put('/api/auth/profile').set(a.headers()).send({ firstName: first, lastName: `S${step}` }).expect(200);
      expected.users.set(a.userId, { ...expected.users.get(a.userId)!, firstName: first, lastName: `S${step}` });
    } else if (roll < 0.5 && a !== b && !members.has(b.userId)) {
      const role = ['user', 'manager', 'admin'][Math.floor(random() * 3)]!;
      await invite(api, a, b, role);
      members.set(b.userId, role);
    } else if (roll < 0.65) {
      const other = [...members.keys()].find((u) => u !== a.userId);
      if (other) {
        const role = members.get(other) === 'user' ? 'manager' : 'user';
        await api.http.put(`/api/companies/current/users/${other}/role`).set(a.headers()).send({ role }).expect(200);
        members.set(other, role);
      }
    } else if (roll < 0.75) {
      const other = [...members.keys()].find((u) => u !== a.userId);
      if (other) {
        await api.http.delete(`/api/companies/current/users/${other}`).set(a.headers()).expect(200);
        members.delete(other);
      }
    } else if (roll < 0.85) {
      const name = `Renamed ${step}`;
      await api.http.put('/api/companies/current').set(a.headers()).send({ name }).expect(200);
      expected.companyNames.set(a.companyId, name);
    } else {
      await api.http.post('/api/auth/login').send({ email: a.email, password: a.password }).expect(200);
    }
  }
}, 120_000);
afterAll(async () => api.close());

describe('read models', () => {
  it('built incrementally, equal what the commands imply (computed without the projectors)', async () => {
    const store = api.paperlink.adapters.readStore;
    for (const [id, u] of expected.users) {
      expect(await store.collection('users').findOne({ _id: id })).toMatchObject(u);
    }
    for (const [companyId, members] of expected.members) {
      const docs = await store.collection('memberships').find({ companyId });
      expect(Object.fromEntries(docs.map((d) => [d.userId, d.role]))).toEqual(Object.fromEntries(members));
      expect(await store.collection('companies').findOne({ _id: companyId })).toMatchObject({ name: expected.companyNames.get(companyId), userCount: members.size });
    }
  });

  it('rebuilt from position zero equal the incrementally built ones', async () => {
    const live = await dump(api.paperlink.adapters.readStore, collections);
    const fresh = new EmbeddedReadStore();
    const runner = new ProjectionRunner(api.paperlink.adapters.events, fresh, allProjections());
    const progress: number[] = [];
    const result = await runner.rebuild((p) => progress.push(p.processed), 50);
    expect(result.events).toBe(await api.paperlink.adapters.events.headPosition());
    expect(progress.length).toBeGreaterThan(1);
    expect(await dump(fresh, collections)).toEqual(live);
  });

  it('do not change when every event is applied twice', async () => {
    const events: RecordedEvent[] = await api.paperlink.adapters.events.readAll({ after: 0, maxCount: 1_000_000 });
    const once = new EmbeddedReadStore();
    const twice = new EmbeddedReadStore();
    for (const p of allProjections()) {
      const u1 = new UnitOfWork(once);
      const u2 = new UnitOfWork(twice);
      for (const e of events) {
        if (!p.handles.has(e.type)) continue;
        await p.apply(e, u1.viewFor(e));
        await p.apply(e, u2.viewFor(e));
        await p.apply(e, u2.viewFor(e));
      }
      await once.commit(u1.writes, []);
      await twice.commit(u2.writes, []);
    }
    expect(await dump(twice, collections)).toEqual(await dump(once, collections));
    expect((await dump(once, collections)).users!.length).toBe(expected.users.size);
  });
});
