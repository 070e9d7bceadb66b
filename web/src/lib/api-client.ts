import type { AxiosError} from 'axios';
import axios, { AxiosHeaders, type AxiosInstance, type AxiosRequestConfig, type InternalAxiosRequestConfig } from 'axios';
import { tokenStorage } from './storage';
import { asOfFor } from './as-of';
import { positionHeader, readSideHeaders, useReadSide } from './read-side';

export const API_BASE = import.meta.env.VITE_API_BASE || '/api';
export const REQUEST_TIMEOUT_MS = 30_000;
export const MAX_429_RETRIES = 2;
/** Retries of a decision refused while the read side catches up (503 read_side_behind). */
export const MAX_503_RETRIES = 3;
export const MAX_RETRY_WAIT_S = 8;

type RetryConfig = InternalAxiosRequestConfig & { _retry429?: number; _retry503?: number; _retried401?: boolean; _requestId?: string };

export interface ClientOptions {
  baseURL?: string;
  sleep?: (ms: number) => Promise<void>;
  /** Called when a 401 cannot be recovered: tokens are already cleared. */
  onAuthFailure?: () => void;
  adapter?: AxiosRequestConfig['adapter'];
}

/** Seconds to wait before retry `attempt` (1-based) of a 429: Retry-After, else 2^attempt, capped at 8. */
export function retryDelaySeconds(retryAfter: string | undefined | null, attempt: number): number {
  const given = retryAfter !== undefined && retryAfter !== null && retryAfter !== '' ? Number(retryAfter) : NaN;
  const wait = Number.isFinite(given) && given >= 0 ? given : 2 ** attempt;
  return Math.min(wait, MAX_RETRY_WAIT_S);
}

function newRequestId(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * The one API client (spec section 7): headers, a 30 s time-out, 429 back-off, and a single
 * token refresh on 401 shared by concurrent requests. Retries keep the request's X-Request-Id,
 * so the server treats them as the same command.
 */
export function createApiClient(options: ClientOptions = {}): AxiosInstance {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const baseURL = options.baseURL ?? API_BASE;
  const client = axios.create({ baseURL, timeout: REQUEST_TIMEOUT_MS, ...(options.adapter ? { adapter: options.adapter } : {}) });
  let refreshing: Promise<string | null> | null = null;

  const refresh = (): Promise<string | null> => {
    refreshing ??= (async () => {
      const refreshToken = tokenStorage.refresh();
      if (!refreshToken) return null;
      try {
        const res = await axios.post(`${baseURL}/auth/refresh`, { refreshToken }, { timeout: REQUEST_TIMEOUT_MS, ...(options.adapter ? { adapter: options.adapter } : {}), headers: companyHeader() });
        const { accessToken, refreshToken: next } = res.data as { accessToken?: string; refreshToken?: string };
        if (!accessToken) return null;
        tokenStorage.setTokens(accessToken, next);
        return accessToken;
      } catch {
        return null;
      }
    })().finally(() => {
      setTimeout(() => (refreshing = null), 0);
    });
    return refreshing;
  };

  client.interceptors.request.use((config: RetryConfig) => {
    const token = tokenStorage.access();
    if (token) config.headers.set('Authorization', `Bearer ${token}`);
    const company = tokenStorage.companyId();
    if (company) config.headers.set('X-Company-ID', company);
    config._requestId ??= newRequestId();
    config.headers.set('X-Request-Id', config._requestId);
    // The lists shown as of a moment (features/history's date picker): the reads that take it get `asOf`.
    const asOf = asOfFor(config.method, config.url);
    if (asOf) config.params = { ...(config.params as Record<string, unknown> | undefined), asOf };
    // Read-your-writes (lib/read-side.ts): a read waits briefly for this tab's newest write.
    for (const [name, value] of Object.entries(readSideHeaders(config.method))) if (!config.headers.has(name)) config.headers.set(name, value);
    return config;
  });

  client.interceptors.response.use((response) => {
    const answer = AxiosHeaders.from(response.headers as AxiosHeaders);
    const readSide = answer.get('x-read-side');
    useReadSide.getState().noteAnswer(positionHeader(answer.get('x-position')), typeof readSide === 'string' ? readSide : null, positionHeader(response.config.headers.get('x-min-position')));
    return response;
  }, async (error: AxiosError) => {
    const config = error.config as RetryConfig | undefined;
    const status = error.response?.status;
    if (!config) throw error;
    if (status === 429 && (config._retry429 ?? 0) < MAX_429_RETRIES) {
      config._retry429 = (config._retry429 ?? 0) + 1;
      const header = error.response?.headers?.['retry-after'] as string | undefined;
      await sleep(retryDelaySeconds(header, config._retry429) * 1000);
      return client.request(config);
    }
    // The server refuses a decision while its read side is behind (503 read_side_behind, before
    // anything is written): the same request, same X-Request-Id, is tried again after Retry-After.
    const code = (error.response?.data as { code?: unknown } | undefined)?.code;
    if (status === 503 && code === 'read_side_behind' && (config._retry503 ?? 0) < MAX_503_RETRIES) {
      config._retry503 = (config._retry503 ?? 0) + 1;
      const header = error.response?.headers?.['retry-after'] as string | undefined;
      await sleep(retryDelaySeconds(header, config._retry503) * 1000);
      return client.request(config);
    }
    const isAuthCall = /\/auth\/(login|register|refresh)$/.test(config.url ?? '');
    if (status === 401 && !isAuthCall) {
      if (!config._retried401) {
        config._retried401 = true;
        const token = await refresh();
        if (token) return client.request(config);
      }
      tokenStorage.clear();
      (options.onAuthFailure ?? (() => window.location.assign('/auth')))();
    }
    throw error;
  });
  return client;
}

function companyHeader(): Record<string, string> {
  const company = tokenStorage.companyId();
  return company ? { 'X-Company-ID': company } : {};
}

/** The server's message for a failed call, else the fallback (spec section 8 prefers the server's text). */
export function errorMessage(error: unknown, fallback: string): string {
  if (axios.isAxiosError(error)) {
    const data = error.response?.data as { error?: unknown; message?: unknown } | undefined;
    if (typeof data?.error === 'string' && data.error) return data.error;
    if (typeof data?.message === 'string' && data.message) return data.message;
  }
  return fallback;
}

let authFailureHandler: () => void = () => window.location.assign('/auth');
export function onAuthFailure(handler: () => void): void {
  authFailureHandler = handler;
}

export const api = createApiClient({ onAuthFailure: () => authFailureHandler() });
