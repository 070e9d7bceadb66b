import { describe, expect, it } from 'vitest';
import { routes, TOAST_OPTIONS } from './App';

describe('app shell', () => {
  it('shows toasts top-right, light, for 5000 ms', () => {
    expect(TOAST_OPTIONS).toEqual({ position: 'top-right', theme: 'light', autoClose: 5000 });
  });

  it('has every route of the spec: /auth outside the shell, the rest behind the guard', () => {
    expect(routes[0]!.path).toBe('/auth');
    const guarded = (routes[1]!.children ?? []).map((r) => r.path);
    for (const path of ['/', '/dashboard', '/transactions', '/receipts', '/matches', '/import', '/exports', '/profile', '/company-settings', '/master-data-settings', '/settings', '/ai-dashboard', '/llm-test']) {
      expect(guarded).toContain(path);
    }
  });
});
