import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, renderHook } from '@testing-library/react';
import { toast } from 'react-toastify';
import { useErrorToast } from './query-scope';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('useErrorToast', () => {
  it('toasts once per failed fetch, not again on a re-render, and again on the next failure', () => {
    const error = vi.spyOn(toast, 'error').mockReturnValue('id');
    const hook = renderHook((q: { error: unknown; errorUpdatedAt: number }) => useErrorToast(q, 'Error loading things'), { initialProps: { error: null as unknown, errorUpdatedAt: 0 } });
    expect(error).not.toHaveBeenCalled();
    hook.rerender({ error: new Error('down'), errorUpdatedAt: 100 });
    hook.rerender({ error: new Error('down'), errorUpdatedAt: 100 });
    expect(error).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenLastCalledWith('Error loading things', { toastId: 'Error loading things-100' });
    hook.rerender({ error: null, errorUpdatedAt: 100 });
    hook.rerender({ error: new Error('down'), errorUpdatedAt: 200 });
    expect(error).toHaveBeenCalledTimes(2);
  });

  it('stays quiet for the failures it is told to pass over', () => {
    const error = vi.spyOn(toast, 'error').mockReturnValue('id');
    const refused = Object.assign(new Error('no'), { status: 403 });
    renderHook(() => useErrorToast({ error: refused, errorUpdatedAt: 100 }, 'Failed', (e) => (e as { status?: number }).status !== 403));
    expect(error).not.toHaveBeenCalled();
  });
});
