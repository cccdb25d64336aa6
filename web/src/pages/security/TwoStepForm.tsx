import { useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { fieldErrors, type FieldErrors } from '../../api/field-errors';
import { Field, FormError } from '../../components/Field';
import { LoadError, Loading } from '../../components/States';
import { useLoad } from '../../components/use-load';
import { useConsole } from '../../context';
import { SendCode } from './SendCode';

type Fields = 'password' | 'code';
const CODES: Partial<Record<string, Fields>> = {
  invalid_password: 'password',
  verification_invalid: 'code',
  verification_exhausted: 'code',
};

/** Two-step verification on or off, confirmed with the password and a `two_factor` code. */
export function TwoStepForm() {
  const { api, user } = useConsole();
  const status = useLoad(() => unwrap<{ enabled: boolean }>(api.GET('/api/v1/auth/mfa/status')), []);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [busy, setBusy] = useState(false);
  if (status.state === 'loading') return <Loading what="two-step verification" />;
  if (status.state === 'error') return <LoadError error={status.error} retry={status.reload} />;
  const enabled = status.value.enabled;
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      await unwrap(api.POST('/api/v1/auth/two-factor', { body: { enabled: !enabled, password, code: code.trim() } }));
      setPassword('');
      setCode('');
      status.reload();
    } catch (err) {
      setErrors(fieldErrors(err, CODES, { password: 'password', code: 'code' }));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="two-step-title">
      <h2 id="two-step-title">Two-step verification</h2>
      <p role="status">
        Two-step verification is <strong>{enabled ? 'on' : 'off'}</strong>.{' '}
        {enabled
          ? 'Sign-ins by password or provider also need a code we e-mail you.'
          : 'Turn it on to require an e-mailed code at every password or provider sign-in.'}
      </p>
      {user.has_password && (
        <Field label="Password" error={errors.password}>
          {(p) => (
            <input
              {...p}
              type="password"
              autocomplete="current-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
      )}
      <SendCode action="two_factor" />
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
      <button type="submit" class="primary" disabled={busy}>
        {enabled ? 'Turn two-step verification off' : 'Turn two-step verification on'}
      </button>
    </form>
  );
}
