import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { esdbConnectionProblem, esdbEndpoints } from './esdb-connection';

describe('EVENTSTORE_URL: connection strings as @eventstore/db-client reads them', () => {
  it('takes a seed list of cluster nodes, each with its port (2113 when left out)', () => {
    expect(esdbEndpoints('esdb://a:2113,b:2113,c:2113')).toEqual({
      dnsDiscover: false,
      hosts: [{ address: 'a', port: 2113 }, { address: 'b', port: 2113 }, { address: 'c', port: 2113 }],
    });
    expect(esdbEndpoints('esdb://admin:changeit@node1.example.com,node2.example.com:2114?tls=true&nodePreference=leader').hosts)
      .toEqual([{ address: 'node1.example.com', port: 2113 }, { address: 'node2.example.com', port: 2114 }]);
    expect(esdbEndpoints('esdb+discover://cluster.example.com:2113')).toEqual({ dnsDiscover: true, hosts: [{ address: 'cluster.example.com', port: 2113 }] });
  });

  it('passes a seed list through the configuration unchanged, with the append limit', () => {
    const url = 'esdb://admin:changeit@a:2113,b:2113,c:2113?tls=true&tlsCAFile=/certs/ca.crt';
    const config = loadConfig({ EVENTSTORE_URL: url, EVENTSTORE_MAX_APPEND_BYTES: '524288' });
    expect(config.EVENTSTORE_URL).toBe(url);
    expect(config.EVENTSTORE_MAX_APPEND_BYTES).toBe(524_288);
    expect(loadConfig({}).EVENTSTORE_MAX_APPEND_BYTES).toBe(1024 * 1024);
  });

  it('refuses what the client cannot read, saying where, without repeating the string (it may hold a password)', () => {
    expect(esdbConnectionProblem('esdb://a:2113,b:2113')).toBeUndefined();
    expect(esdbConnectionProblem('http://a:2113')).toMatch(/expected esdb:\/\/ or esdb\+discover:\/\/ at character 1/);
    expect(esdbConnectionProblem('esdb://a:2113,b:port')).toMatch(/expected port number/);
    const secret = 'esdb://admin:s3cret@a:2113?tls=true&&';
    expect(() => loadConfig({ EVENTSTORE_URL: secret })).toThrow(/EVENTSTORE_URL: not an EventStoreDB connection string/);
    try {
      loadConfig({ EVENTSTORE_URL: secret });
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret');
    }
    expect(() => loadConfig({ EVENTSTORE_MAX_APPEND_BYTES: '100' })).toThrow(/EVENTSTORE_MAX_APPEND_BYTES/);
  });
});
