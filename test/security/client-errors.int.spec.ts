/**
 * Found by the fuzz suite (ADR 0007): a request whose address and headers pass Node's
 * 16 KB limit, or whose request line cannot be parsed, was answered by Node itself with a bare
 * status line and no body. The server answers them with `{ error, code }` like every other 4xx.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { answerClientErrors } from '../../infra/src/http/client-errors';
import { startApi, type Api } from '../support/harness';

let api: Api;
let server: Server;
let port: number;

beforeAll(async () => {
  api = await startApi({}, undefined, { noJobs: true });
  server = answerClientErrors(createServer(api.paperlink.app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await api?.close();
});

/** Sends raw bytes, returns the raw answer. */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: unknown; code: unknown };

it('answers a request line over 16 KB with 431 {error, code}', async () => {
  const answer = await raw(`GET /api/transactions/${'z'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  expect(answer).toMatch(/^HTTP\/1\.1 431 /);
  expect(answer).toMatch(/content-type: application\/json/i);
  expect(bodyOf(answer)).toEqual({ error: expect.any(String), code: 'headers_too_large' });
});

it('answers an unreadable request line with 400 {error, code}', async () => {
  const answer = await raw('GARBAGE\u0000 / HTTP/9.9\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  expect(bodyOf(answer)).toEqual({ error: expect.any(String), code: 'bad_request' });
});

it('still serves ordinary requests', async () => {
  const answer = await raw('GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
});
