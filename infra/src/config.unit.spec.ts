import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

const SECRET = 'one-secret-for-every-process-0123456789abcdef';

describe('JWT_SECRET and PAPERLINK_ROLE', () => {
  it('refuses a process of any role but all without JWT_SECRET, naming the variable', () => {
    for (const role of ['command', 'query', 'projector']) {
      expect(() => loadConfig({ PAPERLINK_ROLE: role })).toThrow(/JWT_SECRET: required when PAPERLINK_ROLE is /);
      expect(() => loadConfig({ PAPERLINK_ROLE: role, JWT_SECRET: '' })).toThrow(/JWT_SECRET/);
    }
  });

  it('starts such a process with JWT_SECRET, and one of role all without it (the key file of its folder)', () => {
    expect(loadConfig({ PAPERLINK_ROLE: 'command', JWT_SECRET: SECRET })).toMatchObject({ PAPERLINK_ROLE: 'command', JWT_SECRET: SECRET });
    expect(loadConfig({}).JWT_SECRET).toBeUndefined();
    expect(loadConfig({ PAPERLINK_ROLE: 'all' }).PAPERLINK_ROLE).toBe('all');
  });

  it('still refuses a JWT_SECRET under 32 characters', () => {
    expect(() => loadConfig({ PAPERLINK_ROLE: 'command', JWT_SECRET: 'short' })).toThrow(/JWT_SECRET must be at least 32 characters/);
  });
});
