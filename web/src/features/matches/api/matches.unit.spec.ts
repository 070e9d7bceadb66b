import { describe, expect, it } from 'vitest';
import { confidenceBadge } from './matches';

describe('match confidence badge (spec section 9)', () => {
  it.each([[100, 'success'], [80, 'success'], [79, 'warning'], [60, 'warning'], [59, 'danger'], [0, 'danger']] as const)('%i%% is %s', (c, badge) => {
    expect(confidenceBadge(c)).toBe(badge);
  });
});
