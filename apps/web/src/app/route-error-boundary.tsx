import { Component, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { ErrorScreen } from './error-screen';

interface State {
  error: unknown;
  failed: boolean;
}

class Boundary extends Component<{ pathname: string; children: ReactNode }, State> {
  override state: State = { error: undefined, failed: false };

  static getDerivedStateFromError(error: unknown): State {
    return { error, failed: true };
  }

  override componentDidUpdate(previous: { pathname: string }) {
    // Another page may well render: leave the error screen when the visitor navigates.
    if (this.state.failed && previous.pathname !== this.props.pathname) {
      this.setState({ error: undefined, failed: false });
    }
  }

  override render() {
    return this.state.failed ? <ErrorScreen error={this.state.error} /> : this.props.children;
  }
}

/** Render errors of any page (and failed page downloads) show the error screen. */
export function RouteErrorBoundary({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return <Boundary pathname={pathname}>{children}</Boundary>;
}
