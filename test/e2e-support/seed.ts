import { join } from 'node:path';
import { expect } from 'vitest';
import type { Account, Api } from '../support/harness';
import { RECEIPTS_DEV } from '../support/labelled-reader';

/** Uploads dev receipts as `who` and waits until OCR and auto-match have suggested a match for each. */
export async function uploadUntilPending(api: Api, who: Account, ids: readonly string[], timeoutMs = 120_000): Promise<void> {
  for (const id of ids) expect((await api.http.post('/api/receipts/upload').set(who.headers()).attach('receipt', join(RECEIPTS_DEV, `${id}.jpg`))).status).toBeLessThan(300);
  const deadline = Date.now() + timeoutMs;
  while (((await api.http.get('/api/matches/pending').set(who.headers())).body as unknown[]).length < ids.length) {
    if (Date.now() > deadline) throw new Error(`no pending match for every receipt in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
