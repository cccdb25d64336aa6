import { useEffect, useState } from 'preact/hooks';
import { ApiError, unwrap, type Api } from '../api/client';
import { fieldErrors, type FieldErrors } from '../api/field-errors';
import { startHandoff } from '../api/oauth-handoff';
import { signInWithPasskey } from '../api/passkeys';
import type { User } from '../api/models';
import { Field, FormError } from '../components/Field';

type Fields = 'email' | 'password' | 'code';

const CODES: Partial<Record<string, Fields>> = {
  invalid_credentials: 'password',
  email_unverified: 'email',
  mfa_invalid: 'code',
  verification_exhausted: 'code',
};

/** Sign-in: e-mail and password, then the e-mailed code when two-step verification is on. */
export function SignInPage({
  api,
  apiBase,
  handoff,
  onSignedIn,
}: {
  api: Api;
  apiBase: string;
  /**
   * A console that signs in with bearer tokens: a provider returns the browser to the API's
   * origin, whose cookie this site never sends, so its sign-in is handed over (api/oauth-handoff.ts).
   */
  handoff: boolean;
  onSignedIn(user: User): void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [providers, setProviders] = useState<{ name: string; display_name: string }[]>([]);
  useEffect(() => {
    unwrap<{ name: string; display_name: string }[]>(api.GET('/api/v1/auth/oauth/providers')).then(setProviders, () =>
      setProviders([]),
    );
  }, [api]);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const body = { identifier: email, password, ...(needsCode && { code: code.trim() }) };
      const session = await unwrap<{ user: User }>(api.POST('/api/v1/auth/login', { body }));
      onSignedIn(session.user);
    } catch (err) {
      if (err instanceof ApiError && err.errorCode === 'mfa_required') {
        setNeedsCode(true);
        setErrors({});
      } else {
        setErrors(fieldErrors(err, CODES, { identifier: 'email', password: 'password', code: 'code' }));
      }
    } finally {
      setBusy(false);
    }
  }

  async function passkey() {
    setBusy(true);
    setErrors({});
    try {
      onSignedIn(await signInWithPasskey(api));
    } catch (err) {
      setErrors({
        form:
          err instanceof DOMException
            ? 'The passkey sign-in was cancelled or is not available here.'
            : fieldErrors(err, {}).form,
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="auth">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate>
        <Field label="Email" error={errors.email}>
          {(p) => (
            <input
              {...p}
              type="email"
              name="email"
              autocomplete="username"
              required
              value={email}
              readOnly={needsCode}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Password" error={errors.password}>
          {(p) => (
            <input
              {...p}
              type="password"
              name="password"
              autocomplete="current-password"
              required
              value={password}
              readOnly={needsCode}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        {needsCode && (
          <>
            <p role="status">Two-step verification is on: we e-mailed you a sign-in code.</p>
            <Field label="Code" error={errors.code} hint="The 8 digits from the e-mail.">
              {(p) => (
                <input
                  {...p}
                  name="code"
                  inputMode="numeric"
                  autocomplete="one-time-code"
                  required
                  autoFocus
                  value={code}
                  onInput={(e) => setCode(e.currentTarget.value)}
                />
              )}
            </Field>
          </>
        )}
        <FormError error={errors.form} />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      {typeof PublicKeyCredential !== 'undefined' && (
        <p>
          <button type="button" onClick={passkey} disabled={busy}>
            Use a passkey
          </button>
        </p>
      )}
      {providers.length > 0 && (
        <ul class="plain providers" aria-label="Other ways to sign in">
          {providers.map((p) => (
            <li key={p.name}>
              <a
                class="button"
                href={`${apiBase}/api/v1/auth/oauth/${encodeURIComponent(p.name)}/authorize`}
                onClick={(e) => {
                  if (!handoff) return;
                  e.preventDefault();
                  void startHandoff(e.currentTarget.href);
                }}
              >
                Continue with {p.display_name}
              </a>
            </li>
          ))}
        </ul>
      )}
      <p>
        New here? <a href="/sign-up">Create an account</a> · <a href="/reset-password">Forgot your password?</a>
      </p>
    </main>
  );
}
