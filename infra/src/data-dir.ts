import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface DataDir {
  root: string;
  eventsFile: string;
  snapshotFile: string;
  filesDir: string;
}

export function dataDir(root: string): DataDir {
  const abs = resolve(root);
  mkdirSync(abs, { recursive: true });
  return { root: abs, eventsFile: join(abs, 'events.sqlite'), snapshotFile: join(abs, 'readmodels', 'snapshot.v8'), filesDir: join(abs, 'files') };
}

/** The signing secret: from the environment, else generated once and kept in the data folder. */
export function signingSecret(dir: DataDir, fromEnv?: string): string {
  if (fromEnv) return fromEnv;
  const file = join(dir.root, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One process owns a data folder at a time (the embedded read models live in its memory). */
export function lockDataDir(dir: DataDir, purpose: string): () => void {
  const file = join(dir.root, 'paperlink.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeFileSync(fd, JSON.stringify({ pid: process.pid, purpose, since: new Date().toISOString() }));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder: { pid?: number; purpose?: string } = {};
      try {
        holder = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        /* half-written lock: treat as stale */
      }
      if (holder.pid && holder.pid !== process.pid && alive(holder.pid)) {
        throw new Error(`${dir.root} is in use by process ${holder.pid} (${holder.purpose ?? 'unknown'}); stop it first`);
      }
      unlinkSync(file);
    }
  }
  throw new Error(`could not lock ${dir.root}`);
}
