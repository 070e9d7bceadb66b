/**
 * What an import de-duplicates against (ADR 0005): an admin's, the company's transactions and
 * files; anyone else's, their own. A plain member sees only her own transactions, so an import
 * that skipped her row because a colleague held it (or found a colleague's file imported) told
 * her about rows she cannot see: one file of 500 amounts found a colleague's exact taxi fare.
 */
import { createHash } from 'node:crypto';
import type { Role } from '@paperlink/domain';

interface Importer {
  userId: string;
  role?: Role;
}

/** Whose transactions the import's duplicates are counted among: undefined for the whole company. */
export function dedupOwner(importer: Importer): string | undefined {
  return importer.role === 'admin' ? undefined : importer.userId;
}

/**
 * The file's key in the company's import ledger: its SHA-256 for an admin; for anyone else a
 * digest of it and the importer, so that the same bytes are "already imported" only when she
 * imported them herself (an admin's import of them still finds each row held, by its key).
 */
export function importFileKey(sha256: string, importer: Importer): string {
  const owner = dedupOwner(importer);
  return owner === undefined ? sha256 : createHash('sha256').update(`paperlink member import\0${owner}\0${sha256}`).digest('hex');
}
