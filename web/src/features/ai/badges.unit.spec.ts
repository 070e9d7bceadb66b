import { describe, expect, it } from 'vitest';
import { aiConfidenceBadge, aiConfidenceLevel, duplicateGroupTone, percent } from './badges';

describe('AI confidence badge (spec section 9: above 0.7 high, above 0.4 medium)', () => {
  it.each([
    [1, 'high'], [0.71, 'high'], [0.7000001, 'high'],
    [0.7, 'medium'], [0.55, 'medium'], [0.41, 'medium'],
    [0.4, 'low'], [0.39, 'low'], [0, 'low'],
  ] as const)('%s is %s', (c, level) => {
    expect(aiConfidenceLevel(c)).toBe(level);
  });

  it('maps levels to badge tones and shows the percentage', () => {
    expect(aiConfidenceBadge(0.92)).toEqual({ level: 'high', tone: 'success', text: 'High (92%)' });
    expect(aiConfidenceBadge(0.5)).toEqual({ level: 'medium', tone: 'warning', text: 'Medium (50%)' });
    expect(aiConfidenceBadge(0.1)).toEqual({ level: 'low', tone: 'danger', text: 'Low (10%)' });
  });
});

describe('duplicate group badge (spec section 9: above 0.8 danger, above 0.6 warning, else info)', () => {
  it.each([
    [0.99, 'danger'], [0.81, 'danger'],
    [0.8, 'warning'], [0.7, 'warning'], [0.61, 'warning'],
    [0.6, 'info'], [0.2, 'info'],
  ] as const)('%s is %s', (c, tone) => {
    expect(duplicateGroupTone(c)).toBe(tone);
  });

  it('rounds percentages', () => {
    expect(percent(0.876)).toBe('88%');
  });
});
