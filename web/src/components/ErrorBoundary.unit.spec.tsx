import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { ErrorBoundary } from './ErrorBoundary';

afterEach(cleanup);

function Broken(): never {
  throw new Error('render failure');
}

describe('error screen', () => {
  it('replaces a screen that fails to render, logs to the console only, and offers reload and the dashboard', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    render(<ErrorBoundary><Broken /></ErrorBoundary>);
    expect(screen.getByText('Oops! Something went wrong')).toBeTruthy();
    expect(screen.getByText("We're sorry, but something unexpected happened. Our team has been notified.")).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Reload Page' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Go to Dashboard' })).toBeTruthy();
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });
});
