import { usableLocale } from './format';
import { ErrorBoundary, LocationProvider, Route, Router, lazy, useLocation } from 'preact-iso';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { unwrap, type Api } from './api/client';
import type { User } from './api/models';
import type { SiteConfig } from './config';
import { ConsoleContext, type Console } from './context';
import { Loading } from './components/States';
import { SignInPage } from './pages/SignInPage';

// Every page after sign-in is its own chunk: the sign-in page loads only what it needs.
const DashboardPage = lazy(() => import('./pages/DashboardPage').then((m) => m.DashboardPage));
const KeysPage = lazy(() => import('./pages/KeysPage').then((m) => m.KeysPage));
const UsagePage = lazy(() => import('./pages/UsagePage').then((m) => m.UsagePage));
const LogsPage = lazy(() => import('./pages/LogsPage').then((m) => m.LogsPage));
const SecurityPage = lazy(() => import('./pages/SecurityPage').then((m) => m.SecurityPage));
const ProfilePage = lazy(() => import('./pages/ProfilePage').then((m) => m.ProfilePage));
const RoutingPage = lazy(() => import('./pages/RoutingPage').then((m) => m.RoutingPage));
const DatasetsPage = lazy(() => import('./pages/DatasetsPage').then((m) => m.DatasetsPage));
const AssetsPage = lazy(() => import('./pages/AssetsPage').then((m) => m.AssetsPage));
const WebhooksPage = lazy(() => import('./pages/WebhooksPage').then((m) => m.WebhooksPage));
const LedgerPage = lazy(() => import('./pages/LedgerPage').then((m) => m.LedgerPage));
const OAuthCallbackPage = lazy(() => import('./pages/OAuthCallbackPage').then((m) => m.OAuthCallbackPage));
const ResetPasswordPage = lazy(() => import('./pages/ResetPasswordPage').then((m) => m.ResetPasswordPage));
const SignUpPage = lazy(() => import('./pages/SignUpPage').then((m) => m.SignUpPage));

const NAV = [
  { href: '/', label: 'Dashboard' },
  { href: '/keys', label: 'Keys' },
  { href: '/usage', label: 'Usage' },
  { href: '/logs', label: 'Logs' },
  { href: '/routing', label: 'Routing' },
  { href: '/assets', label: 'Assets' },
  { href: '/datasets', label: 'Datasets' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/ledger', label: 'Ledger' },
  { href: '/security', label: 'Security' },
  { href: '/profile', label: 'Profile' },
];

type SessionState = { state: 'checking' } | { state: 'signed-out' } | { state: 'signed-in'; user: User };

export function App({ config, api }: { config: SiteConfig; api: Api }) {
  // Signed out for sure — a bearer console keeps its token in memory only (api/bearer.ts), and the
  // site said the page came without a session cookie — shows the sign-in without asking the API.
  const signedOut = config.session === 'bearer' || config.signed_out;
  const [session, setSession] = useState<SessionState>(signedOut ? { state: 'signed-out' } : { state: 'checking' });
  useEffect(() => {
    if (signedOut) return;
    unwrap<User>(api.GET('/api/v1/auth/me')).then(
      (user) => setSession({ state: 'signed-in', user }),
      () => setSession({ state: 'signed-out' }),
    );
  }, [api]);

  if (session.state === 'checking') return <Loading what="the console" />;
  return (
    // Links under /api/ (a provider sign-in, a CSV download) leave the app: the browser follows them.
    <LocationProvider scope={/^\/(?!api\/)/}>
      {session.state === 'signed-out' ? (
        <SignedOut
          api={api}
          apiBase={config.api_base}
          handoff={config.session === 'bearer'}
          captcha={config.captcha}
          onSignedIn={(user) => setSession({ state: 'signed-in', user })}
        />
      ) : (
        <SignedIn
          api={api}
          config={config}
          user={session.user}
          setUser={(user) => setSession({ state: 'signed-in', user })}
          onSignedOut={() => setSession({ state: 'signed-out' })}
        />
      )}
    </LocationProvider>
  );
}

function SignedOut({
  api,
  apiBase,
  handoff,
  captcha,
  onSignedIn,
}: {
  api: Api;
  apiBase: string;
  handoff: boolean;
  captcha: SiteConfig['captcha'];
  onSignedIn(user: User): void;
}) {
  return (
    <Router>
      <Route path="/sign-up" component={() => <SignUpPage api={api} onSignedIn={onSignedIn} />} />
      <Route path="/oauth/callback" component={() => <OAuthCallbackPage api={api} onSignedIn={onSignedIn} />} />
      <Route path="/reset-password" component={() => <ResetPasswordPage api={api} captcha={captcha} />} />
      <Route
        default
        component={() => <SignInPage api={api} apiBase={apiBase} handoff={handoff} onSignedIn={onSignedIn} />}
      />
    </Router>
  );
}

function SignedIn({
  api,
  config,
  user,
  setUser,
  onSignedOut,
}: {
  api: Api;
  config: SiteConfig;
  user: User;
  setUser(user: User): void;
  onSignedOut(): void;
}) {
  const value = useMemo<Console>(
    () => ({
      api,
      config,
      user,
      locale: usableLocale(user.locale, navigator.language),
      setUser,
      async signOut() {
        await unwrap(api.POST('/api/v1/auth/logout')).catch(() => undefined);
        onSignedOut();
      },
    }),
    [api, config, user, setUser, onSignedOut],
  );
  return (
    <ConsoleContext.Provider value={value}>
      <Shell>
        <ErrorBoundary>
          <Router>
            <Route path="/" component={DashboardPage} />
            <Route path="/keys" component={KeysPage} />
            <Route path="/usage" component={UsagePage} />
            <Route path="/logs" component={LogsPage} />
            <Route path="/security" component={SecurityPage} />
            <Route path="/profile" component={ProfilePage} />
            <Route path="/ledger" component={LedgerPage} />
            <Route path="/routing" component={RoutingPage} />
            <Route path="/datasets" component={DatasetsPage} />
            <Route path="/assets" component={AssetsPage} />
            <Route path="/webhooks" component={WebhooksPage} />
            <Route path="/oauth/callback" component={() => <OAuthCallbackPage api={api} onSignedIn={setUser} />} />
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      </Shell>
    </ConsoleContext.Provider>
  );
}

function Shell({ children }: { children: preact.ComponentChildren }) {
  const { path } = useLocation();
  return (
    <ConsoleContext.Consumer>
      {(c) => (
        <div class="shell">
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="topbar">
            <span class="brand">Model gateway</span>
            <nav aria-label="Console">
              <ul>
                {NAV.map((item) => (
                  <li key={item.href}>
                    <a href={item.href} aria-current={path === item.href ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
                {c?.config.gateway_url && (
                  <li>
                    <a href={`${c.config.gateway_url}/docs`} target="_blank" rel="noopener noreferrer">
                      API reference
                    </a>
                  </li>
                )}
              </ul>
            </nav>
            <span class="who">{c?.user.email}</span>
            <button type="button" onClick={() => void c?.signOut()}>
              Sign out
            </button>
          </header>
          <main id="main" tabIndex={-1}>
            {children}
          </main>
        </div>
      )}
    </ConsoleContext.Consumer>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        <a href="/">Back to the dashboard</a>
      </p>
    </section>
  );
}
