import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { fieldErrors, type FieldErrors } from '../../api/field-errors';
import { Field, FormError } from '../../components/Field';
import { useConsole } from '../../context';
import { SendCode, type SensitiveAction } from './SendCode';

type Fields = 'password' | 'code';
const CODES: Partial<Record<string, Fields>> = {
  invalid_password: 'password',
  verification_invalid: 'code',
  verification_exhausted: 'code',
};

interface ConfirmedActionProps {
  action: SensitiveAction;
  /** The form's accessible name. */
  label: string;
  submit: string;
  danger?: boolean;
  children?: ComponentChildren;
  run(confirm: { password: string; code: string }): Promise<void>;
  onCancel(): void;
}

/** A sensitive action's confirmation: the current password (when the account has one) and its e-mailed code. */
export function ConfirmedAction({ action, label, submit, danger, children, run, onCancel }: ConfirmedActionProps) {
  const { user } = useConsole();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [busy, setBusy] = useState(false);
  async function onSubmit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      await run({ password, code: code.trim() });
    } catch (err) {
      setErrors(fieldErrors(err, CODES, { password: 'password', code: 'code' }));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={onSubmit} noValidate aria-label={label}>
      {children}
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
      <SendCode action={action} />
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
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class={danger ? 'danger' : 'primary'} disabled={busy}>
          {submit}
        </button>
      </div>
    </form>
  );
}
