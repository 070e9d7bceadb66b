import type { Api } from './harness';

/**
 * Sign-in throttling tests: callers' addresses come from X-Forwarded-For, as behind the reverse
 * proxy of a real deployment (start the server with PROXIED in its environment).
 */
export const PROXIED = { TRUST_PROXY: 'loopback' } as const;

export const from = (address: string) => ({ 'x-forwarded-for': address });

export const login = (a: Api, address: string, email: string, password: string) =>
  a.http.post('/api/auth/login').set(from(address)).send({ email, password });

/** n distinct documentation addresses (198.51.x.y), as from a botnet. */
export const botnet = (n: number) => Array.from({ length: n }, (_, i) => `198.51.${Math.floor(i / 250)}.${(i % 250) + 1}`);
