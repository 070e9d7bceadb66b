import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  failed: boolean;
}

/** Spec section 2, error screen: shown when a screen fails to render; the error goes to the console only. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('Screen failed to render', error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <main className="error-screen" role="alert">
        <h1>Oops! Something went wrong</h1>
        <p>We&apos;re sorry, but something unexpected happened. Our team has been notified.</p>
        <div className="row">
          <button type="button" className="btn primary" onClick={() => window.location.reload()}>Reload Page</button>
          <button type="button" className="btn" onClick={() => window.location.assign('/dashboard')}>Go to Dashboard</button>
        </div>
      </main>
    );
  }
}
