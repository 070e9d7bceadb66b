/**
 * EVENTSTORE_URL as @eventstore/db-client reads it: `esdb://host:port[,host:port...][?key=value...]`
 * (a seed list of cluster nodes, asked over gossip for the leader) or `esdb+discover://` (the
 * nodes from DNS). A seed list is not a URL (`new URL` refuses it), so the setting is checked by
 * the client's own parser, and handed to the client unchanged.
 */
import { createRequire } from 'node:module';
import type { parseConnectionString as Parse } from '@eventstore/db-client/dist/Client/parseConnectionString';

/**
 * The client's parser, loaded when a connection string is checked: the client module pulls in
 * gRPC (half a second here), which a process without EVENTSTORE_URL never needs.
 */
let parser: typeof Parse | undefined;
function parseConnectionString(connectionString: string): ReturnType<typeof Parse> {
  parser ??= (createRequire(import.meta.url)('@eventstore/db-client/dist/Client/parseConnectionString') as { parseConnectionString: typeof Parse }).parseConnectionString;
  return parser(connectionString);
}

export interface EsdbEndpoints {
  /** The seed nodes (one for a single node or a DNS name to discover). */
  hosts: Array<{ address: string; port: number }>;
  dnsDiscover: boolean;
}

/** The nodes a connection string names; throws the parser's message (which says where) when it cannot be read. */
export function esdbEndpoints(connectionString: string): EsdbEndpoints {
  const parsed = parseConnectionString(connectionString);
  if (parsed.hosts.length === 0) throw new Error('no host in the connection string');
  return { hosts: parsed.hosts.map((h) => ({ address: h.address, port: h.port })), dnsDiscover: parsed.dnsDiscover };
}

/**
 * Why a connection string cannot be used (undefined when it can): where the parser stopped and
 * what it expected there. Never a piece of the string itself, which may hold a password.
 */
export function esdbConnectionProblem(connectionString: string): string | undefined {
  try {
    esdbEndpoints(connectionString);
    return undefined;
  } catch (error) {
    const { expected, location } = error as { expected?: unknown; location?: unknown };
    const at = Array.isArray(location) && typeof location[0] === 'number' ? ` at character ${location[0] + 1}` : '';
    return typeof expected === 'string' ? `expected ${expected}${at} (esdb://host:port,host:port?key=value)` : 'not an esdb:// connection string';
  }
}
