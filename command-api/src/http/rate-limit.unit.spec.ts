import { describe, expect, it } from 'vitest';
import { addressGroup, SlidingWindowLimiter } from './rate-limit';

describe('SlidingWindowLimiter.reserve', () => {
  it('takes slots at once: of 150 attempts started together, 50 get one', () => {
    const limiter = new SlidingWindowLimiter(50, 60_000);
    const slots = Array.from({ length: 150 }, () => limiter.reserve('1.2.3.4', 1000));
    expect(slots.filter((s) => typeof s === 'function')).toHaveLength(50);
    expect(slots.filter((s) => typeof s === 'number').every((s) => s === 60)).toBe(true);
  });

  it('a slot given back is free again, once only', () => {
    const limiter = new SlidingWindowLimiter(2, 60_000);
    const a = limiter.reserve('k', 1000) as () => void;
    limiter.reserve('k', 1001);
    expect(limiter.reserve('k', 1002)).toBeTypeOf('number');
    a();
    a();
    expect(limiter.reserve('k', 1003)).toBeTypeOf('function');
    expect(limiter.reserve('k', 1004)).toBeTypeOf('number');
  });

  it('slots free up as the window slides', () => {
    const limiter = new SlidingWindowLimiter(1, 10_000);
    limiter.reserve('k', 0);
    expect(limiter.reserve('k', 5000)).toBe(5);
    expect(limiter.reserve('k', 10_001)).toBeTypeOf('function');
  });
});

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
