import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * The counts a read store knew, kept in a small file of the data folder across restarts (ADR
 * 0029, decision 24). A list's total of a big filter (the unmatched transactions of 1,000,000)
 * is a recount of the whole table after a start (1.2-2.2 s on the counting thread); with the
 * count known before the restart the first list answers with it while the recount runs, as it
 * does while an import commits. Only hints: a count is always recounted before it is kept, and a
 * file that is missing, unreadable or of another format is ignored.
 */
export interface KnownCounts {
  knownCounts(limit?: number): Array<[collection: string, key: string, n: number]>;
  seedKnownCounts(entries: ReadonlyArray<readonly [collection: string, key: string, n: number]>): void;
}

const FORMAT = 1;

export const hasKnownCounts = (store: unknown): store is KnownCounts =>
  typeof (store as Partial<KnownCounts> | null)?.knownCounts === 'function' && typeof (store as Partial<KnownCounts>).seedKnownCounts === 'function';

/** The entries a hints file holds; none when it is missing or not ours. */
export function readCountHints(file: string): Array<[string, string, number]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const p = parsed as { format?: unknown; counts?: unknown };
  if (p?.format !== FORMAT || !Array.isArray(p.counts)) return [];
  return p.counts.filter((e): e is [string, string, number] =>
    Array.isArray(e) && e.length === 3 && typeof e[0] === 'string' && typeof e[1] === 'string' && Number.isSafeInteger(e[2]) && (e[2] as number) >= 0);
}

/**
 * Written whole to a temporary file and renamed over the old one: a crash leaves one or the other.
 * The temporary file is this process's (the query and command processes of one folder both save).
 */
export function writeCountHints(file: string, counts: ReadonlyArray<readonly [string, string, number]>): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ format: FORMAT, counts }));
  renameSync(tmp, file);
}

/**
 * Seeds the store with the file's counts, then saves what it knows every `everyMs` (when it
 * changed) and at `stop`. A failure to save is reported once and otherwise ignored: hints only.
 */
export function keepCountHints(store: KnownCounts, file: string, options: { everyMs?: number; log?: (m: string) => void } = {}): { save(): void; stop(): void } {
  store.seedKnownCounts(readCountHints(file));
  let last = '';
  let warned = false;
  const save = () => {
    const counts = store.knownCounts();
    const text = JSON.stringify(counts);
    if (text === last) return;
    try {
      writeCountHints(file, counts);
      last = text;
    } catch (error) {
      if (!warned) options.log?.(`count hints not saved: ${error instanceof Error ? error.message : String(error)}`);
      warned = true;
    }
  };
  const timer = setInterval(save, options.everyMs ?? 60_000);
  timer.unref();
  return {
    save,
    stop() {
      clearInterval(timer);
      save();
    },
  };
}
