import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that answers in the shape of Anthropic's Messages and Models APIs, so the
 * real SDK can be driven through its failures without a network: each model has a script of
 * behaviours, taken one per request (the last one repeats).
 */
export type Behaviour =
  | { kind: 'answer'; category: string; confidence: number }
  | { kind: 'status'; status: number }
  /** Holds the request until the client gives up (a time-out). */
  | { kind: 'hang' }
  /** 200 with text and no tool call. */
  | { kind: 'text' }
  /** 200 whose body is not JSON. */
  | { kind: 'garbage' };

export interface SeenRequest {
  method: string;
  path: string;
  model?: string;
  apiKey?: string;
  body?: Record<string, unknown>;
}

export interface FakeAnthropic {
  url: string;
  seen: SeenRequest[];
  script(model: string, ...behaviours: Behaviour[]): void;
  models: string[];
  /** Status to answer the Models API with (200 by default). */
  modelsStatus: number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake', 'retry-after-ms': '5', ...headers });
  res.end(JSON.stringify(body));
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const scripts = new Map<string, Behaviour[]>();
  const seen: SeenRequest[] = [];
  const state = { models: ['claude-primary-test', 'claude-fallback-test', 'claude-other-test'], modelsStatus: 200 };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const text = await readBody(req);
      // The SDK sends the key as x-api-key or as a bearer token, by version.
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const apiKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : bearer;
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        seen.push({ method: 'GET', path: url.pathname, ...(apiKey ? { apiKey } : {}) });
        if (state.modelsStatus !== 200) return json(res, state.modelsStatus, { type: 'error', error: { type: 'api_error', message: 'models unavailable' } }, { 'x-should-retry': 'false' });
        const limit = Number(url.searchParams.get('limit') ?? 20);
        const data = state.models.slice(0, limit).map((id, i) => ({ type: 'model', id, display_name: id.replace(/-/g, ' '), created_at: `2026-0${1 + i}-01T00:00:00Z` }));
        return json(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
      }
      if (req.method === 'POST' && url.pathname === '/v1/messages') {
        const body = JSON.parse(text) as Record<string, unknown>;
        const model = String(body.model);
        seen.push({ method: 'POST', path: url.pathname, model, body, ...(apiKey ? { apiKey } : {}) });
        const script = scripts.get(model) ?? [{ kind: 'status', status: 404 }];
        const b = script.length > 1 ? script.shift()! : script[0]!;
        switch (b.kind) {
          case 'status':
            return json(res, b.status, { type: 'error', error: { type: b.status === 529 ? 'overloaded_error' : 'api_error', message: `status ${b.status}` } });
          case 'hang':
            return; // never answered; the client times out and the socket is closed with the server
          case 'text':
            return json(res, 200, { id: 'msg_1', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: 'I think it is Travel.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
          case 'garbage':
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end('{"id": "msg_1", "content": [');
          case 'answer':
            return json(res, 200, {
              id: 'msg_1', type: 'message', role: 'assistant', model,
              content: [{ type: 'tool_use', id: 'toolu_1', name: 'record_category', input: { category: b.category, confidence: b.confidence } }],
              stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 },
            });
        }
      }
      json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'no such route' } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    script: (model, ...behaviours) => void scripts.set(model, behaviours),
    get models() {
      return state.models;
    },
    set models(m: string[]) {
      state.models = m;
    },
    get modelsStatus() {
      return state.modelsStatus;
    },
    set modelsStatus(s: number) {
      state.modelsStatus = s;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
