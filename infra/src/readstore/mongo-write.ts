import { MongoBulkWriteError, MongoServerError, type AnyBulkWriteOperation, type ClientSession, type Db, type Document } from 'mongodb';
import type { Checkpoint, Doc } from '@paperlink/domain';
import { FencedError, type WriteFence } from '../projector/lease';

export const CHECKPOINTS = '_checkpoints';
/** Where the projector lease lives (infra/src/projector/lease.ts, mongo-lease.ts). */
export const LEASES = '_leases';

export { FencedError, type WriteFence } from '../projector/lease';

/** A document already stored at a later position than this write's: another writer got there first. */
export class StaleWriteError extends Error {
  readonly code = 'stale-write';
}

/** An insert of a document this store believed absent collided (it exists): the commit is written again as replacements. */
export class InsertCollision extends Error {}

const isDuplicate = (e: { code?: unknown }) => e.code === 11000;
const opt = (session?: ClientSession) => (session ? { session } : {});

/**
 * The local check: the lease is held and was renewed recently enough that no standby can have taken
 * it over; while that is not sure (a renewal late), the write waits for the next renewal.
 */
export async function awaitLease(fence: WriteFence | undefined): Promise<number | undefined> {
  if (!fence) return undefined;
  let held = fence.token() !== undefined && fence.valid();
  if (!held && fence.token() !== undefined && fence.whenHeld) {
    await fence.whenHeld();
    held = fence.token() !== undefined && fence.valid();
  }
  const token = fence.token();
  if (token === undefined || !held) throw new FencedError(`this process does not hold the ${fence.lease} lease: its writes are refused`);
  return token;
}

/** The local check, then the server's: the lease document still names this owner and token. */
export async function checkFence(db: Db, fence: WriteFence | undefined, session?: ClientSession): Promise<number | undefined> {
  if (!fence) return undefined;
  const token = await awaitLease(fence);
  // A write (not a read): in a transaction it conflicts with a takeover's, so one of them waits.
  const r = await db.collection<Document>(LEASES).updateOne({ _id: fence.lease, owner: fence.owner, token } as Document, { $inc: { writes: 1 } }, opt(session));
  if (r.matchedCount !== 1) throw new FencedError(`the ${fence.lease} lease was taken over (token ${token} is not the current one): this process's writes are refused`);
  return token;
}

/** Whether this store knows a document is absent (its own reads and writes, as the only writer). */
export type Known = (id: string) => 'absent' | 'present' | undefined;

/**
 * One collection's writes as one bulk write: documents known absent as inserts (one statement on
 * every server: FerretDB writes each update in a transaction of its own), the rest as replacements.
 * `guard`: a replacement applies only over a document at the same or an earlier position (`_pos`: a
 * stale writer never rolls back what a newer one wrote) and a delete only of a document not written
 * after `deleteBound`. Without it every filter is the bare `_id`, the only filter FerretDB v1 reads
 * by index (any other is a scan of the whole collection per document, and not atomic there anyway).
 */
export function collectionOps(docs: Map<string, Doc | null>, known: Known, deleteBound: number | undefined, guard = true): AnyBulkWriteOperation<Doc>[] {
  const ops: AnyBulkWriteOperation<Doc>[] = [];
  for (const [id, doc] of docs) {
    if (doc === null) {
      const filter = deleteBound === undefined || !guard ? { _id: id } : { _id: id, _pos: { $not: { $gt: deleteBound } } };
      ops.push({ deleteOne: { filter } });
    } else if (known(id) === 'absent') {
      ops.push({ insertOne: { document: doc } });
    } else {
      const pos = (doc as { _pos?: unknown })._pos;
      const filter = typeof pos === 'number' && guard ? { _id: id, _pos: { $not: { $gt: pos } } } : { _id: id };
      ops.push({ replaceOne: { filter, replacement: doc, upsert: true } });
    }
  }
  return ops;
}

/**
 * Runs a collection's bulk write, `chunk` operations at a time with `between` called before each
 * (the writer's own lease check: a write goes out only while the lease is surely held); a
 * collision tells what it means (see collectionOps).
 */
export async function writeCollection(db: Db, name: string, ops: AnyBulkWriteOperation<Doc>[], options: { session?: ClientSession; chunk?: number; between?: () => Promise<unknown> } = {}): Promise<void> {
  const chunk = options.chunk ?? ops.length;
  for (let at = 0; at < ops.length; at += chunk) {
    await options.between?.();
    await bulk(db, name, ops.slice(at, at + chunk), options.session);
  }
}

async function bulk(db: Db, name: string, ops: AnyBulkWriteOperation<Doc>[], session?: ClientSession): Promise<void> {
  try {
    await db.collection<Doc>(name).bulkWrite(ops, { ordered: false, ...opt(session) });
  } catch (error) {
    const errors = error instanceof MongoBulkWriteError ? (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]) : [];
    const duplicates = errors.filter((e) => isDuplicate(e));
    if (duplicates.length === 0 && !(error instanceof MongoServerError && isDuplicate(error))) throw error;
    // An upsert whose guard did not match inserts, and collides with the newer document.
    const replaced = duplicates.find((e) => 'replaceOne' in (ops[e.index] ?? {}));
    if (replaced || duplicates.length === 0) {
      const id = replaced ? String((ops[replaced.index] as { replaceOne: { filter: { _id: string } } }).replaceOne.filter._id) : '?';
      throw new StaleWriteError(`${name}/${id} is stored at a later position than this write: another projector wrote it`);
    }
    throw new InsertCollision(`${name}: ${duplicates.length} document(s) believed absent exist`);
  }
}

/**
 * The checkpoints of a commit, in one statement where they exist (a batch's checkpoints share
 * their position): set only where no newer fencing token wrote them. A missing one (or one a
 * newer token holds) is upserted with the same guard, which collides with a newer token's.
 */
export async function writeCheckpoints(db: Db, checkpoints: readonly Checkpoint[], token: number | undefined, session?: ClientSession): Promise<void> {
  const coll = db.collection<Doc>(CHECKPOINTS);
  const guard = token === undefined ? {} : { _fence: { $not: { $gt: token } } };
  const stamp = token === undefined ? {} : { _fence: token };
  const groups = new Map<string, Checkpoint[]>();
  for (const cp of checkpoints) {
    const key = `${cp.version}\0${cp.position}`;
    groups.set(key, [...(groups.get(key) ?? []), cp]);
  }
  for (const group of groups.values()) {
    const { version, position } = group[0]!;
    const names = group.map((c) => c.name);
    const r = await coll.updateMany({ _id: { $in: names }, ...guard }, { $set: { version, position, ...stamp } }, opt(session));
    if (r.matchedCount === names.length) continue;
    const ops: AnyBulkWriteOperation<Doc>[] = group.map((cp) => ({
      replaceOne: { filter: { _id: cp.name, ...guard }, replacement: { name: cp.name, version: cp.version, position: cp.position, ...stamp }, upsert: true },
    }));
    try {
      await coll.bulkWrite(ops, { ordered: false, ...opt(session) });
    } catch (error) {
      if (isDuplicate(error as { code?: unknown }) || (error instanceof MongoBulkWriteError && (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]).some((e) => isDuplicate(e)))) {
        throw new FencedError(`a checkpoint was written by a newer projector (fencing token above ${token}): this process's writes are refused`);
      }
      throw error;
    }
  }
}

/** Inserts documents; answers those that exist already (their inserts collided), to be replaced. */
export async function insertNew(db: Db, name: string, docs: Doc[]): Promise<Doc[]> {
  if (docs.length === 0) return [];
  try {
    await db.collection<Doc>(name).insertMany(docs, { ordered: false });
    return [];
  } catch (error) {
    if (!(error instanceof MongoBulkWriteError)) throw error;
    const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    if (errors.some((e) => !isDuplicate(e))) throw error;
    return errors.map((e) => docs[e.index]!);
  }
}
