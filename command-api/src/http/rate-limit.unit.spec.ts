import { describe, expect, it } from 'vitest';
import { addressGroup } from './rate-limit';

// The limits themselves are in the limit store (infra/src/limits/contract.ts).
describe('addressGroup', () => {
  it('counts IPv4 addresses one by one and IPv6 addresses by their /64', () => {
    expect(addressGroup('203.0.113.9')).toBe('203.0.113.9');
    expect(addressGroup('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressGroup('2001:db8:aaaa:bbbb::1')).toBe('2001:db8:aaaa:bbbb::/64');
    expect(addressGroup('2001:0db8:aaaa:bbbb:cccc:dddd:eeee:ffff')).toBe('2001:db8:aaaa:bbbb::/64');
    expect(addressGroup('2001:db8::1')).toBe(addressGroup('2001:db8:0:0:ffff::2'));
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
