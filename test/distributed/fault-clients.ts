/**
 * Clients for the fault test: each write carries an X-Request-Id of its own and is retried with
 * the same id while the process, router or broker behind it is down (the product answers a
 * repeat with the first answer). A write counts as acknowledged only when it answered 2xx.
 */
import { randomUUID } from 'node:crypto';
import { Client, type Body } from './topology';

export interface Answer {
  status: number;
  body: Body;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Answers that mean "not now" (a process or server is down, the read side is behind): ask again. */
const TRANSIENT = new Set([502, 503, 504]);

export class FaultClient extends Client {
  /** X-Request-Ids of the writes that answered 2xx. */
  readonly acknowledged: string[] = [];
  /** Network errors and transient answers met and retried. */
  retries = 0;

  async write(method: string, path: string, body?: unknown, budgetMs = 120_000): Promise<Answer> {
    const requestId = `fault-${randomUUID()}`;
    const answer = await this.retrying(() => this.call(method, path, body, { 'x-request-id': requestId }), budgetMs);
    if (answer.status >= 200 && answer.status < 300) this.acknowledged.push(requestId);
    return answer;
  }

  async read(path: string, budgetMs = 60_000): Promise<Answer> {
    return this.retrying(() => this.call('GET', path), budgetMs);
  }

  private async retrying(send: () => Promise<Answer>, budgetMs: number): Promise<Answer> {
    const end = Date.now() + budgetMs;
    for (;;) {
      try {
        const answer = await send();
        if (!TRANSIENT.has(answer.status) || Date.now() > end) return answer;
      } catch (error) {
        if (Date.now() > end) throw error;
      }
      this.retries++;
      await sleep(300);
    }
  }
}

export function csvForm(bytes: Buffer, name: string): FormData {
  const form = new FormData();
  form.append('csvFile', new Blob([bytes], { type: 'text/csv' }), name);
  return form;
}

export function receiptForm(bytes: Buffer, name: string): FormData {
  const form = new FormData();
  form.append('receipt', new Blob([bytes], { type: 'image/jpeg' }), name);
  return form;
}

export const pendingOf = (body: Body): Array<{ id: string }> => (Array.isArray(body) ? body : (body.matches ?? [])) as Array<{ id: string }>;
