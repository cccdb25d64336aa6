import { useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { fieldErrors, type FieldErrors } from '../../api/field-errors';
import { Field, FormError } from '../../components/Field';
import { useConsole } from '../../context';
import { SendCode } from './SendCode';

type Fields = 'current' | 'next' | 'code';
const CODES: Partial<Record<string, Fields>> = {
  invalid_password: 'current',
  weak_password: 'next',
  password_reused: 'next',
  verification_invalid: 'code',
  verification_exhausted: 'code',
};

/** Change (or, for a provider-made account, set) the password: current password, new one, e-mailed code. */
export function PasswordChangeForm() {
  const { api, user } = useConsole();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setDone(false);
    try {
      await unwrap(
        api.POST('/api/v1/auth/password/change', {
          body: { current_password: current, new_password: next, code: code.trim() },
        }),
      );
      setDone(true);
      setCurrent('');
      setNext('');
      setCode('');
    } catch (err) {
      setErrors(fieldErrors(err, CODES, { current_password: 'current', new_password: 'next', code: 'code' }));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="password-title">
      <h2 id="password-title">{user.has_password ? 'Change password' : 'Set a password'}</h2>
      {user.has_password && (
        <Field label="Current password" error={errors.current}>
          {(p) => (
            <input
              {...p}
              type="password"
              autocomplete="current-password"
              value={current}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
          )}
        </Field>
      )}
      <Field label="New password" error={errors.next} hint="8 to 128 characters, not a common password.">
        {(p) => (
          <input
            {...p}
            type="password"
            autocomplete="new-password"
            value={next}
            onInput={(e) => setNext(e.currentTarget.value)}
          />
        )}
      </Field>
      <SendCode action="change_password" />
      <Field label="Code" error={errors.code}>
        {(p) => (
          <input
            {...p}
            inputMode="numeric"
            autocomplete="one-time-code"
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        )}
      </Field>
      <FormError error={errors.form} />
      {done && <p role="status">Password changed. Every other session was signed out.</p>}
      <button type="submit" class="primary" disabled={busy}>
        Change password
      </button>
    </form>
  );
}
