import { randomFillSync } from 'node:crypto';
import { ID_PATTERN } from '@paperlink/domain/http/params';

/**
 * Random bytes are drawn 4 KiB at a time and handed out 10 per id: one system call per 409
 * ids instead of one per id (a 200,000-row import makes 200,000 ids; one call each held the
 * request thread for most of a second).
 */
const POOL = Buffer.alloc(4096);
let used = POOL.length;
function random10(into: Buffer): void {
  if (used + 10 > POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  POOL.copy(into, 6, used, used + 10);
  used += 10;
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of milliseconds, then random bits. Ids made one after
 * another sort in time order, so new streams land at the end of the store's indexes.
 */
export function newId(now = Date.now()): string {
  const b = Buffer.allocUnsafe(16);
  random10(b);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export { ID_PATTERN };

export const isId = (value: unknown): value is string => typeof value === 'string' && ID_PATTERN.test(value);
