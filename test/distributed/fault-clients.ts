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
/** A call slower than this (retries included) is told of. */
const SLOW_MS = 5000;

export class FaultClient extends Client {
  /** X-Request-Ids of the writes that answered 2xx. */
  readonly acknowledged: string[] = [];
  /** Network errors and transient answers met and retried. */
  retries = 0;

  /** `slow`: told of every call (with its retries) that took longer than SLOW_MS, to say where a run's time went. */
  constructor(base: string, private readonly slow: (message: string) => void = () => {}) {
    super(base);
  }

  async write(method: string, path: string, body?: unknown, budgetMs = 120_000): Promise<Answer> {
    const requestId = `fault-${randomUUID()}`;
    const answer = await this.retrying(`${method} ${path}`, () => this.call(method, path, body, { 'x-request-id': requestId }), budgetMs);
    if (answer.status >= 200 && answer.status < 300) this.acknowledged.push(requestId);
    return answer;
  }

  async read(path: string, budgetMs = 60_000): Promise<Answer> {
    return this.retrying(`GET ${path}`, () => this.call('GET', path), budgetMs);
  }

  private async retrying(what: string, send: () => Promise<Answer>, budgetMs: number): Promise<Answer> {
    const started = Date.now();
    const end = started + budgetMs;
    const met = new Map<string, number>();
    const meet = (kind: string) => met.set(kind, (met.get(kind) ?? 0) + 1);
    const done = (answer: Answer) => {
      const retried = [...met].map(([m, n]) => `${n} x ${m}`).join(', ');
      if (Date.now() - started > SLOW_MS) this.slow(`${what}: ${answer.status} after ${((Date.now() - started) / 1000).toFixed(1)} s${retried ? ` (retried after ${retried})` : ''}`);
      return answer;
    };
    for (;;) {
      try {
        const answer = await send();
        if (!TRANSIENT.has(answer.status) || Date.now() > end) return done(answer);
        meet(String(answer.status));
      } catch (error) {
        if (Date.now() > end) throw error;
        meet(error instanceof Error ? (error.cause as { code?: string } | undefined)?.code ?? error.message : 'error');
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
