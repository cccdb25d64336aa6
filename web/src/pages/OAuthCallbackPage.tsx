import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { unwrap, type Api } from '../api/client';
import { fieldErrors } from '../api/field-errors';
import { finishHandoff } from '../api/oauth-handoff';
import type { User } from '../api/models';
import { Field, FormError } from '../components/Field';

/**
 * Where the gateway sends the browser back from an OpenID Connect provider
 * (`/oauth/callback?provider&result=signed_in|mfa_required|linked|link_pending|error`): signed in, the
 * two-step code for a held sign-in, or the provider's error.
 */
export function OAuthCallbackPage({ api, onSignedIn }: { api: Api; onSignedIn(user: User): void }) {
  const { query, route } = useLocation();
  const [code, setCode] = useState('');
  const [error, setError] = useState<{ code?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  const done = (user: User) => {
    route(query.result === 'linked' || query.result === 'link_pending' ? '/security' : '/', true);
    onSignedIn(user);
  };
  useEffect(() => {
    if ((query.result === 'signed_in' || query.result === 'link_pending') && query.ticket) {
      // A cross-site console's sign-in, handed over: the ticket leaves the address bar at once.
      history.replaceState(null, '', '/oauth/callback');
      finishHandoff(api, query.ticket).then(done, (err: unknown) => setError(fieldErrors(err, {})));
    } else if (query.result === 'signed_in' || query.result === 'linked') {
      unwrap<User>(api.GET('/api/v1/auth/me')).then(done, () =>
        setError({ form: 'The provider sign-in did not leave a session. Try again.' }),
      );
    }
  }, []);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError({});
    try {
      done(
        (
          await unwrap<{ user: User }>(
            api.POST('/api/v1/auth/oauth/2fa', { body: { ticket: query.ticket ?? '', code: code.trim() } }),
          )
        ).user,
      );
    } catch (err) {
      setError(fieldErrors(err, { mfa_invalid: 'code', verification_exhausted: 'code' }));
    } finally {
      setBusy(false);
    }
  }
  return (
    <main id="main" class="auth">
      <h1>Signing in with {query.provider ?? 'your provider'}</h1>
      {query.result === 'error' && (
        <p class="error" role="alert">
          {query.message ?? 'The provider sign-in failed.'} {query.error_code && <code>({query.error_code})</code>}
        </p>
      )}
      {query.result === 'mfa_required' && (
        <form onSubmit={submit} noValidate>
          <p role="status">Two-step verification is on: we e-mailed you a sign-in code.</p>
          <Field label="Code" error={error.code}>
            {(p) => (
              <input
                {...p}
                inputMode="numeric"
                autocomplete="one-time-code"
                autoFocus
                value={code}
                onInput={(e) => setCode(e.currentTarget.value)}
              />
            )}
          </Field>
          <FormError error={error.form} />
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {query.result !== 'mfa_required' && <FormError error={error.form} />}
      <p>
        <a href="/">Back to sign-in</a>
      </p>
    </main>
  );
}
