import { describe, expect, it } from 'vitest';
import { loggableUrl } from './errors';

describe('loggableUrl', () => {
  it('hides the signed token of a direct-upload URL', () => {
    const token = 'eyJrIjoiYWJjIn0.c2lnbmF0dXJl';
    const line = loggableUrl(`/api/receipts/direct/${token}`);
    expect(line).toBe('/api/receipts/direct/[redacted]');
    expect(line).not.toContain(token);
  });

  it('keeps query names but not their values', () => {
    expect(loggableUrl('/api/transactions?search=ACME%20secret&page=2')).toBe('/api/transactions?search=…&page=…');
  });

  it('leaves ordinary paths alone', () => {
    expect(loggableUrl('/api/receipts/abc123/view')).toBe('/api/receipts/abc123/view');
  });
});
