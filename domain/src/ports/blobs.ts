/**
 * The file store port: receipt files, content-addressed by the SHA-256 of their bytes, so the
 * same bytes are stored once and a duplicate upload is recognised by its key. Local disk in
 * the embedded profile, MongoDB GridFS in the distributed one; both pass
 * `infra/src/blobs/contract.ts`.
 */
export interface BlobInfo {
  /** Hex SHA-256 of the bytes: the blob's key. */
  sha256: string;
  size: number;
}

export interface BlobStore {
  readonly kind: string;
  /** Stores the bytes (once: storing the same bytes again is a no-op) and returns their key. */
  put(bytes: Uint8Array): Promise<BlobInfo>;
  /** The bytes under a key, or null when there are none. */
  get(sha256: string): Promise<Buffer | null>;
  has(sha256: string): Promise<boolean>;
  /** Removes the bytes and the files derived from them (used only when no receipt refers to them any more). */
  delete(sha256: string): Promise<void>;
  /**
   * A file derived from the blob under `sha256` (`name`: what it is, e.g. a receipt's print copy
   * 'print-v1'), kept beside it; null when none was made. Derived files are caches: made again
   * from the blob whenever missing, replaced by a later put of the same name.
   */
  getDerived(sha256: string, name: string): Promise<Buffer | null>;
  putDerived(sha256: string, name: string, bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}
