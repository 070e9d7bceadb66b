import { AxiosError, AxiosHeaders, type AxiosAdapter, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiClient, retryDelaySeconds, REQUEST_TIMEOUT_MS } from './api-client';
import { tokenStorage } from './storage';
import { useReadSide } from './read-side';

type Reply = { status: number; data?: unknown; headers?: Record<string, string> };

/** A fake HTTP layer: answers from a script, records what was sent. */
function fakeServer(script: (config: InternalAxiosRequestConfig, n: number) => Reply) {
  const calls: InternalAxiosRequestConfig[] = [];
  const adapter: AxiosAdapter = async (config) => {
    calls.push(config);
    const r = script(config, calls.length);
    const response: AxiosResponse = { status: r.status, statusText: String(r.status), data: r.data ?? {}, headers: new AxiosHeaders(r.headers ?? {}), config };
    if (r.status >= 400) throw new AxiosError(`HTTP ${r.status}`, 'ERR_BAD_RESPONSE', config, null, response);
    return response;
  };
  return { calls, adapter };
}

const header = (c: InternalAxiosRequestConfig, name: string) => (c.headers as AxiosHeaders).get(name);

beforeEach(() => {
  localStorage.clear();
  tokenStorage.setTokens('access-1', 'refresh-1');
  tokenStorage.setCompanyId('company-9');
});

describe('api client headers', () => {
  it('sends the bearer token, the company and a random request id, with a 30 s time-out and base /api', async () => {
    const { calls, adapter } = fakeServer(() => ({ status: 200 }));
    const client = createApiClient({ adapter });
    await client.get('/companies');
    await client.get('/companies');
    expect(header(calls[0]!, 'Authorization')).toBe('Bearer access-1');
    expect(header(calls[0]!, 'X-Company-ID')).toBe('company-9');
    expect(header(calls[0]!, 'X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(header(calls[0]!, 'X-Request-Id')).not.toBe(header(calls[1]!, 'X-Request-Id'));
    expect(calls[0]!.timeout).toBe(REQUEST_TIMEOUT_MS);
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(calls[0]!.baseURL).toBe('/api');
  });

  it('reads the company id from the alternate key too', async () => {
    localStorage.removeItem('currentCompanyId');
    localStorage.setItem('companyId', 'alt-company');
    const { calls, adapter } = fakeServer(() => ({ status: 200 }));
    await createApiClient({ adapter }).get('/x');
    expect(header(calls[0]!, 'X-Company-ID')).toBe('alt-company');
  });
});

describe('429 back-off', () => {
  it('waits Retry-After seconds, else 2^attempt capped at 8, and retries at most twice with the same request id', async () => {
    const waits: number[] = [];
    const { calls, adapter } = fakeServer(() => ({ status: 429, headers: { 'retry-after': '3' } }));
    const client = createApiClient({ adapter, sleep: async (ms) => void waits.push(ms) });
    await expect(client.get('/x')).rejects.toMatchObject({ response: { status: 429 } });
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([3000, 3000]);
    expect(new Set(calls.map((c) => header(c, 'X-Request-Id'))).size).toBe(1);
  });

  it('without Retry-After waits 2 then 4 seconds, and succeeds when the server recovers', async () => {
    const waits: number[] = [];
    const { calls, adapter } = fakeServer((_c, n) => (n < 3 ? { status: 429 } : { status: 200, data: { ok: true } }));
    const res = await createApiClient({ adapter, sleep: async (ms) => void waits.push(ms) }).get('/x');
    expect(res.data).toEqual({ ok: true });
    expect(waits).toEqual([2000, 4000]);
    expect(calls).toHaveLength(3);
  });

  it('retries a 503 read_side_behind after Retry-After with the same request id, and not another 503', async () => {
    const waits: number[] = [];
    const { calls, adapter } = fakeServer((_c, n) => (n < 3 ? { status: 503, headers: { 'retry-after': '2' }, data: { error: 'behind', code: 'read_side_behind' } } : { status: 200, data: { ok: true } }));
    const res = await createApiClient({ adapter, sleep: async (ms) => void waits.push(ms) }).post('/x', { a: 1 });
    expect(res.data).toEqual({ ok: true });
    expect(waits).toEqual([2000, 2000]);
    expect(new Set(calls.map((c) => header(c, 'X-Request-Id'))).size).toBe(1);

    const other = fakeServer(() => ({ status: 503, data: { error: 'down', code: 'unavailable' } }));
    await expect(createApiClient({ adapter: other.adapter, sleep: async () => undefined }).get('/y')).rejects.toMatchObject({ response: { status: 503 } });
    expect(other.calls).toHaveLength(1);
  });

  it('caps the wait at 8 seconds', () => {
    expect(retryDelaySeconds('30', 1)).toBe(8);
    expect(retryDelaySeconds(undefined, 4)).toBe(8);
    expect(retryDelaySeconds('0', 1)).toBe(0);
    expect(retryDelaySeconds('soon', 2)).toBe(4);
  });
});

describe('401: refresh once and retry', () => {
  it('refreshes the tokens, stores both, and retries the request once', async () => {
    const { calls, adapter } = fakeServer((c) => {
      if (c.url?.endsWith('/auth/refresh')) return { status: 200, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } };
      return header(c, 'Authorization') === 'Bearer access-2' ? { status: 200, data: 'ok' } : { status: 401 };
    });
    const onAuthFailure = vi.fn();
    const res = await createApiClient({ adapter, onAuthFailure }).get('/companies');
    expect(res.data).toBe('ok');
    expect(calls.map((c) => c.url)).toEqual(['/companies', '/api/auth/refresh', '/companies']);
    expect(JSON.parse(String(calls[1]!.data))).toEqual({ refreshToken: 'refresh-1' });
    expect(tokenStorage.access()).toBe('access-2');
    expect(tokenStorage.refresh()).toBe('refresh-2');
    expect(onAuthFailure).not.toHaveBeenCalled();
  });

  it('clears the tokens and goes to sign-in when the retry is refused again', async () => {
    const { calls, adapter } = fakeServer((c) => (c.url?.endsWith('/auth/refresh') ? { status: 200, data: { accessToken: 'access-2', refreshToken: 'r2' } } : { status: 401 }));
    const onAuthFailure = vi.fn();
    await expect(createApiClient({ adapter, onAuthFailure }).get('/companies')).rejects.toBeTruthy();
    expect(calls.filter((c) => c.url?.endsWith('/auth/refresh'))).toHaveLength(1);
    expect(tokenStorage.access()).toBeNull();
    expect(tokenStorage.refresh()).toBeNull();
    expect(onAuthFailure).toHaveBeenCalledTimes(1);
  });

  it('clears the tokens when the refresh itself fails', async () => {
    const { adapter } = fakeServer((c) => (c.url?.endsWith('/auth/refresh') ? { status: 401 } : { status: 401 }));
    const onAuthFailure = vi.fn();
    await expect(createApiClient({ adapter, onAuthFailure }).get('/companies')).rejects.toBeTruthy();
    expect(tokenStorage.access()).toBeNull();
    expect(onAuthFailure).toHaveBeenCalledTimes(1);
  });

  it('shares one refresh between concurrent 401s', async () => {
    const { calls, adapter } = fakeServer((c) => {
      if (c.url?.endsWith('/auth/refresh')) return { status: 200, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } };
      return header(c, 'Authorization') === 'Bearer access-2' ? { status: 200 } : { status: 401 };
    });
    const client = createApiClient({ adapter });
    await Promise.all([client.get('/a'), client.get('/b'), client.get('/c')]);
    expect(calls.filter((c) => c.url?.endsWith('/auth/refresh'))).toHaveLength(1);
  });

  it('does not try to refresh a failed sign-in', async () => {
    const { calls, adapter } = fakeServer(() => ({ status: 401, data: { error: 'Invalid email or password' } }));
    const onAuthFailure = vi.fn();
    await expect(createApiClient({ adapter, onAuthFailure }).post('/auth/login', {})).rejects.toBeTruthy();
    expect(calls).toHaveLength(1);
    expect(onAuthFailure).not.toHaveBeenCalled();
  });
});

describe('read-your-writes (X-Position, X-Min-Position, X-Read-Side)', () => {
  beforeEach(() => useReadSide.getState().reset());
  afterEach(() => useReadSide.getState().reset());

  it('sends nothing before a write; after one, every read asks for its position and waits at most 1 s', async () => {
    const { calls, adapter } = fakeServer((c): Reply => (c.method === 'post' ? { status: 200, headers: { 'x-position': '41', 'x-read-side': 'current' } } : { status: 200, headers: { 'x-read-side': 'current' } }));
    const client = createApiClient({ adapter });
    await client.get('/transactions');
    expect(header(calls[0]!, 'X-Min-Position')).toBeUndefined();
    await client.post('/transactions/import', {});
    expect(header(calls[1]!, 'X-Min-Position')).toBeUndefined();
    await client.get('/transactions');
    expect(header(calls[2]!, 'X-Min-Position')).toBe('41');
    expect(header(calls[2]!, 'Prefer')).toBe('wait=1');
    expect(useReadSide.getState()).toMatchObject({ position: 41, behind: false });
  });

  it('a write answered before it is listed makes the tab behind until a read of its position says current', async () => {
    let listed = false;
    const { calls, adapter } = fakeServer((c): Reply => {
      if (c.method === 'post') return { status: 200, headers: { 'x-position': '90', 'x-read-side': 'behind' } };
      return { status: 200, headers: { 'x-read-side': listed ? 'current' : 'behind' } };
    });
    const client = createApiClient({ adapter });
    await client.post('/transactions/import', {});
    expect(useReadSide.getState()).toMatchObject({ position: 90, behind: true });
    await client.get('/auth/profile');
    expect(useReadSide.getState().behind).toBe(true);
    listed = true;
    await client.get('/auth/profile');
    expect(header(calls[2]!, 'X-Min-Position')).toBe('90');
    expect(useReadSide.getState().behind).toBe(false);
    // A later write's position wins; an older one never moves it back.
    useReadSide.getState().noteAnswer(12, 'behind', null);
    expect(useReadSide.getState()).toMatchObject({ position: 90, behind: false });
  });

  it('keeps the position in the tab\'s sessionStorage, so a reload still reads its writes', async () => {
    useReadSide.getState().noteAnswer(33, 'current', null);
    expect(JSON.parse(sessionStorage.getItem('paperlink-read-position')!).state).toEqual({ position: 33 });
    sessionStorage.setItem('paperlink-read-position', JSON.stringify({ state: { position: 44 }, version: 0 }));
    await useReadSide.persist.rehydrate();
    expect(useReadSide.getState()).toMatchObject({ position: 44, behind: false });
  });

  it('ignores a malformed position', async () => {
    const { adapter } = fakeServer(() => ({ status: 200, headers: { 'x-position': '9e9', 'x-read-side': 'behind' } }));
    await createApiClient({ adapter }).post('/x', {});
    expect(useReadSide.getState()).toMatchObject({ position: 0, behind: false });
  });
});
