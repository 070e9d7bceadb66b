import { MongoServerError, type Db, type Document } from 'mongodb';
import type { LeaseRecord, LeaseStore } from '../projector/lease';
import { LEASES } from './mongo-write';

interface LeaseDoc {
  _id: string;
  owner: string | null;
  token: number;
  beat: number;
  failure?: string | null;
}

const record = (d: LeaseDoc | null): LeaseRecord | null => (d ? { owner: d.owner, token: d.token, beat: d.beat, failure: d.failure ?? null } : null);

/**
 * The projector lease as a document of the read store's database (`_leases`), changed only by
 * conditional single-document writes, which every server of MongoDB's protocol applies atomically
 * (FerretDB too, without transactions). The read store's writes check the same document (mongo-write.ts).
 */
export class MongoLeaseStore implements LeaseStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<LeaseDoc>(LEASES);
  }

  async read(name: string): Promise<LeaseRecord | null> {
    return record(await this.coll.findOne({ _id: name }));
  }

  async create(name: string, owner: string): Promise<LeaseRecord | null> {
    const doc: LeaseDoc = { _id: name, owner, token: 1, beat: 0, failure: null };
    try {
      await this.coll.insertOne(doc);
      return record(doc);
    } catch (error) {
      if (error instanceof MongoServerError && error.code === 11000) return null;
      throw error;
    }
  }

  async takeOver(name: string, seen: LeaseRecord, owner: string): Promise<LeaseRecord | null> {
    const doc = await this.coll.findOneAndUpdate(
      { _id: name, owner: seen.owner, token: seen.token, beat: seen.beat },
      { $set: { owner, beat: 0, failure: null }, $inc: { token: 1 } },
      { returnDocument: 'after' },
    );
    return record(doc);
  }

  async renew(name: string, owner: string, token: number, failure: string | null): Promise<boolean> {
    const r = await this.coll.updateOne({ _id: name, owner, token }, { $inc: { beat: 1 }, $set: { failure } });
    return r.matchedCount === 1;
  }

  async release(name: string, owner: string, token: number): Promise<void> {
    await this.coll.updateOne({ _id: name, owner, token } as Document, { $set: { owner: null } });
  }
}
