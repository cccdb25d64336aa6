import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { unwrap, type Api } from '../api/client';
import { fieldErrors, type FieldErrors } from '../api/field-errors';
import type { User } from '../api/models';
import { Field, FormError } from '../components/Field';

type Fields = 'email' | 'password' | 'nickname' | 'code';
const CODES: Partial<Record<string, Fields>> = {
  weak_password: 'password',
  verification_invalid: 'code',
  verification_exhausted: 'code',
};

/** Sign-up: e-mail and password, then the code e-mailed to confirm the address (which signs in). */
export function SignUpPage({ api, onSignedIn }: { api: Api; onSignedIn(user: User): void }) {
  const location = useLocation();
  const [form, setForm] = useState({ email: '', password: '', nickname: '', code: '' });
  const [sent, setSent] = useState(false);
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      if (!sent) {
        await unwrap(
          api.POST('/api/v1/auth/register', {
            body: {
              email: form.email,
              password: form.password,
              ...(form.nickname.trim() && { nickname: form.nickname.trim() }),
            },
          }),
        );
        setSent(true);
      } else {
        const session = await unwrap<{ user: User }>(
          api.POST('/api/v1/auth/register/confirm', {
            body: { email: form.email, password: form.password, code: form.code.trim() },
          }),
        );
        location.route('/');
        onSignedIn(session.user);
      }
    } catch (err) {
      setErrors(fieldErrors(err, CODES, { email: 'email', password: 'password', nickname: 'nickname', code: 'code' }));
    } finally {
      setBusy(false);
    }
  }
  const input = (field: Fields) => ({
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
  });
  return (
    <main id="main" class="auth">
      <h1>Create an account</h1>
      <form onSubmit={submit} noValidate>
        <Field label="Email" error={errors.email}>
          {(p) => <input {...p} type="email" autocomplete="email" readOnly={sent} {...input('email')} />}
        </Field>
        <Field label="Password" error={errors.password} hint="8 to 128 characters, not a common password.">
          {(p) => <input {...p} type="password" autocomplete="new-password" readOnly={sent} {...input('password')} />}
        </Field>
        <Field label="Nickname" error={errors.nickname}>
          {(p) => <input {...p} autocomplete="nickname" maxLength={64} readOnly={sent} {...input('nickname')} />}
        </Field>
        {sent && (
          <>
            <p role="status">We e-mailed a code to {form.email}. Enter it to confirm the address.</p>
            <Field label="Code" error={errors.code}>
              {(p) => <input {...p} inputMode="numeric" autocomplete="one-time-code" autoFocus {...input('code')} />}
            </Field>
          </>
        )}
        <FormError error={errors.form} />
        <button type="submit" class="primary" disabled={busy}>
          {sent ? 'Confirm and sign in' : 'Create account'}
        </button>
      </form>
      <p>
        Have an account? <a href="/">Sign in</a>
      </p>
    </main>
  );
}
