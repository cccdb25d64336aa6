import { useState } from 'preact/hooks';
import { unwrap, type Api } from '../api/client';
import { fieldErrors, type FieldErrors } from '../api/field-errors';
import { Captcha } from '../components/Captcha';
import { Field, FormError } from '../components/Field';
import type { SiteConfig } from '../config';

type Fields = 'email' | 'code' | 'password';
const CODES: Partial<Record<string, Fields>> = {
  weak_password: 'password',
  password_reused: 'password',
  verification_invalid: 'code',
  verification_exhausted: 'code',
};

/** Forgot password: the e-mail and the captcha, then the e-mailed code and a new password. */
export function ResetPasswordPage({ api, captcha }: { api: Api; captcha: SiteConfig['captcha'] }) {
  const [form, setForm] = useState({ email: '', code: '', password: '' });
  const [token, setToken] = useState<string>();
  const [stage, setStage] = useState<'ask' | 'confirm' | 'done'>('ask');
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [busy, setBusy] = useState(false);
  const input = (field: Fields) => ({
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
  });
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      if (stage === 'ask') {
        if (!token) throw new Error('Complete the captcha first.');
        await unwrap(
          api.POST('/api/v1/auth/password/reset/request', { body: { email: form.email, captcha_token: token } }),
        );
        setStage('confirm');
      } else {
        await unwrap(
          api.POST('/api/v1/auth/password/reset/confirm', {
            body: { email: form.email, code: form.code.trim(), new_password: form.password },
          }),
        );
        setStage('done');
      }
    } catch (err) {
      setErrors(fieldErrors(err, CODES, { email: 'email', code: 'code', new_password: 'password' }));
    } finally {
      setBusy(false);
    }
  }
  return (
    <main id="main" class="auth">
      <h1>Reset your password</h1>
      {!captcha && <p class="error">Password resets are not available on this console: ask its operator.</p>}
      {stage === 'done' ? (
        <p role="status">
          Your password was reset and every session signed out. <a href="/">Sign in</a>
        </p>
      ) : (
        captcha && (
          <form onSubmit={submit} noValidate>
            <Field label="Email" error={errors.email}>
              {(p) => <input {...p} type="email" autocomplete="email" readOnly={stage !== 'ask'} {...input('email')} />}
            </Field>
            {stage === 'ask' && <Captcha captcha={captcha} onToken={setToken} />}
            {stage === 'confirm' && (
              <>
                <p role="status">If {form.email} has an account, we e-mailed it a code.</p>
                <Field label="Code" error={errors.code}>
                  {(p) => (
                    <input {...p} inputMode="numeric" autocomplete="one-time-code" autoFocus {...input('code')} />
                  )}
                </Field>
                <Field label="New password" error={errors.password} hint="8 to 128 characters, not a common password.">
                  {(p) => <input {...p} type="password" autocomplete="new-password" {...input('password')} />}
                </Field>
              </>
            )}
            <FormError error={errors.form} />
            <button type="submit" class="primary" disabled={busy}>
              {stage === 'ask' ? 'Send reset code' : 'Set new password'}
            </button>
          </form>
        )
      )}
      <p>
        <a href="/">Back to sign-in</a>
      </p>
    </main>
  );
}
