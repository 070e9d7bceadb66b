import { createHash } from 'node:crypto';
import { GridFSBucket, MongoClient, MongoServerError, type Db, type MongoClientOptions, type ObjectId } from 'mongodb';
import { PRINT_COPY, type BlobInfo, type BlobStore } from '@paperlink/domain';

const HEX = /^[0-9a-f]{64}$/;
export const GRIDFS_BUCKET = 'receipts';

function checkKey(sha256: string): void {
  if (!HEX.test(sha256)) throw new Error(`not a SHA-256 key: ${sha256}`);
}

/** Derived files a blob may have (removed with it). */
const DERIVED_NAMES = [PRINT_COPY];
function checkDerived(name: string): void {
  if (!DERIVED_NAMES.includes(name)) throw new Error(`not a derived file name: ${name}`);
}

const isDuplicateKey = (e: unknown) => e instanceof MongoServerError && e.code === 11000;

/**
 * Content-addressed files in MongoDB GridFS (bucket `receipts`): each blob is one GridFS file
 * named by the SHA-256 of its bytes, and a unique index on the file name keeps one copy per
 * content. GridFS writes the chunks first and the files document last, so a crash mid-upload
 * leaves only orphan chunks, never a partial blob under a real key. Two processes storing the
 * same bytes at once race on the files document: the loser's insert fails on the unique index,
 * it removes its own chunks and answers with the winner's key.
 */
export class GridFsBlobStore implements BlobStore {
  readonly kind = 'mongodb-gridfs';
  private readonly bucket: GridFSBucket;

  private constructor(private readonly client: MongoClient | undefined, private readonly db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: GRIDFS_BUCKET });
  }

  static async connect(url: string, dbName: string, options?: MongoClientOptions): Promise<GridFsBlobStore> {
    const client = new MongoClient(url, options);
    await client.connect();
    try {
      return await GridFsBlobStore.open(client.db(dbName), client);
    } catch (e) {
      await client.close();
      throw e;
    }
  }

  /** On a database of a client the caller owns (close() then leaves the client open). */
  static async open(db: Db, ownedClient?: MongoClient): Promise<GridFsBlobStore> {
    await db.collection(`${GRIDFS_BUCKET}.files`).createIndex({ filename: 1 }, { unique: true });
    return new GridFsBlobStore(ownedClient, db);
  }

  private async fileId(sha256: string): Promise<ObjectId | null> {
    const file = await this.db
      .collection<{ _id: ObjectId; filename: string }>(`${GRIDFS_BUCKET}.files`)
      .findOne({ filename: sha256 }, { projection: { _id: 1 } });
    return file?._id ?? null;
  }

  async put(bytes: Uint8Array): Promise<BlobInfo> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const info = { sha256, size: bytes.byteLength };
    if (await this.has(sha256)) return info;
    const upload = this.bucket.openUploadStream(sha256, { metadata: { sha256 } });
    try {
      await new Promise<void>((resolve, reject) => {
        upload.on('error', reject);
        upload.once('finish', resolve);
        if (bytes.byteLength === 0) upload.end();
        else upload.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      });
    } catch (e) {
      // Whatever happened, the chunks written under this upload's id belong to no file.
      await this.bucket.delete(upload.id).catch(() => {});
      if (isDuplicateKey(e)) return info; // another writer stored the same bytes first
      throw e;
    }
    return info;
  }

  async get(sha256: string, derived = false): Promise<Buffer | null> {
    if (!derived) checkKey(sha256);
    const id = await this.fileId(sha256);
    if (!id) return null;
    const parts: Uint8Array[] = [];
    try {
      for await (const chunk of this.bucket.openDownloadStream(id)) parts.push(chunk as Uint8Array);
    } catch (e) {
      if ((await this.fileId(sha256)) === null) return null; // deleted while we read it
      throw e;
    }
    return Buffer.concat(parts);
  }

  async has(sha256: string): Promise<boolean> {
    if (!HEX.test(sha256)) return false;
    return (await this.fileId(sha256)) !== null;
  }

  async delete(sha256: string): Promise<void> {
    checkKey(sha256);
    // The blob and the files derived from it (named `<sha256>.<name>`).
    const files = await this.bucket.find({ filename: { $in: [sha256, ...DERIVED_NAMES.map((n) => `${sha256}.${n}`)] } }, { projection: { _id: 1 } }).toArray();
    for (const file of files) {
      // Removes the files document first (so the blob is gone at once), then its chunks; a
      // concurrent delete of the same file makes this one a no-op.
      await this.bucket.delete(file._id).catch((e: unknown) => {
        if (!/File not found/i.test((e as Error).message)) throw e;
      });
    }
  }

  /** A derived file is a GridFS file named `<sha256>.<name>` (the unique index keeps one). */
  async getDerived(sha256: string, name: string): Promise<Buffer | null> {
    checkKey(sha256);
    checkDerived(name);
    return this.get(`${sha256}.${name}`, true);
  }

  async putDerived(sha256: string, name: string, bytes: Uint8Array): Promise<void> {
    checkKey(sha256);
    checkDerived(name);
    const filename = `${sha256}.${name}`;
    const old = await this.bucket.find({ filename }, { projection: { _id: 1 } }).toArray();
    for (const file of old) await this.bucket.delete(file._id).catch(() => {});
    const upload = this.bucket.openUploadStream(filename, { metadata: { derivedFrom: sha256 } });
    try {
      await new Promise<void>((resolve, reject) => {
        upload.on('error', reject);
        upload.once('finish', resolve);
        upload.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      });
    } catch (e) {
      await this.bucket.delete(upload.id).catch(() => {});
      if (!isDuplicateKey(e)) throw e; // another writer made the same copy first
    }
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
