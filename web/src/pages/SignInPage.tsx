import { useState } from 'preact/hooks';
import { ApiError, unwrap, type Api } from '../api/client';
import { fieldErrors, type FieldErrors } from '../api/field-errors';
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
export function SignInPage({ api, onSignedIn }: { api: Api; onSignedIn(user: User): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});

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

  return (
    <main id="main" class="auth">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate>
        <Field label="Email" error={errors.email}>
          {(p) => <input {...p} type="email" name="email" autocomplete="username" required value={email} readOnly={needsCode} onInput={(e) => setEmail(e.currentTarget.value)} />}
        </Field>
        <Field label="Password" error={errors.password}>
          {(p) => <input {...p} type="password" name="password" autocomplete="current-password" required value={password} readOnly={needsCode} onInput={(e) => setPassword(e.currentTarget.value)} />}
        </Field>
        {needsCode && (
          <>
            <p role="status">Two-step verification is on: we e-mailed you a sign-in code.</p>
            <Field label="Code" error={errors.code} hint="The 8 digits from the e-mail.">
              {(p) => <input {...p} name="code" inputMode="numeric" autocomplete="one-time-code" required autoFocus value={code} onInput={(e) => setCode(e.currentTarget.value)} />}
            </Field>
          </>
        )}
        <FormError error={errors.form} />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
