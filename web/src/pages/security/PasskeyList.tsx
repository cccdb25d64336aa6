import { useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { fieldErrors, type FieldErrors } from '../../api/field-errors';
import { addPasskey } from '../../api/passkeys';
import { Field, FormError } from '../../components/Field';
import { Empty, LoadError, Loading } from '../../components/States';
import { useLoad } from '../../components/use-load';
import { useConsole } from '../../context';
import { formatDateTime, usableLocale } from '../../format';
import { SendCode } from './SendCode';

interface Passkey {
  id: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
}

type Fields = 'password' | 'code' | 'name';
const CODES: Partial<Record<string, Fields>> = {
  invalid_password: 'password',
  verification_invalid: 'code',
  verification_exhausted: 'code',
};

/** Passkeys: the list, add one (password and an `add_passkey` code, then the authenticator), remove. */
export function PasskeyList() {
  const { api, user } = useConsole();
  const passkeys = useLoad(() => unwrap<Passkey[]>(api.GET('/api/v1/auth/passkeys')), []);
  const [mode, setMode] = useState<{ action: 'add' } | { action: 'remove'; passkey: Passkey } | null>(null);
  const [form, setForm] = useState({ password: '', code: '', name: '' });
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    if (!mode) return;
    setBusy(true);
    setErrors({});
    try {
      const confirm = { password: form.password, code: form.code.trim() };
      if (mode.action === 'add') await addPasskey(api, confirm, form.name);
      else
        await unwrap(
          api.POST('/api/v1/auth/passkeys/{id}/remove', { params: { path: { id: mode.passkey.id } }, body: confirm }),
        );
      setMode(null);
      setForm({ password: '', code: '', name: '' });
      passkeys.reload();
    } catch (err) {
      setErrors(
        err instanceof DOMException
          ? { form: 'The authenticator did not create a passkey (cancelled or not available).' }
          : fieldErrors(err, CODES, { password: 'password', code: 'code', name: 'name' }),
      );
    } finally {
      setBusy(false);
    }
  }
  const input = (field: Fields) => ({
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
  });

  return (
    <div>
      <h2>Passkeys</h2>
      {passkeys.state === 'loading' && <Loading what="passkeys" />}
      {passkeys.state === 'error' && <LoadError error={passkeys.error} retry={passkeys.reload} />}
      {passkeys.state === 'ready' && passkeys.value.length === 0 && (
        <Empty>No passkeys yet. A passkey signs you in without a password or code.</Empty>
      )}
      {passkeys.state === 'ready' && passkeys.value.length > 0 && (
        <ul class="plain sessions">
          {passkeys.value.map((p) => (
            <li key={p.id}>
              <div>
                <strong>{p.name ?? 'Passkey'}</strong>
                <div class="muted">
                  added {formatDateTime(p.created_at, usableLocale(user.locale, navigator.language))}
                  {p.last_used_at &&
                    ` · last used ${formatDateTime(p.last_used_at, usableLocale(user.locale, navigator.language))}`}
                </div>
              </div>
              <button
                type="button"
                class="danger"
                aria-label={`Remove passkey ${p.name ?? ''}`.trim()}
                onClick={() => setMode({ action: 'remove', passkey: p })}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {!mode && (
        <button type="button" onClick={() => setMode({ action: 'add' })}>
          Add a passkey
        </button>
      )}
      {mode && (
        <form onSubmit={submit} noValidate aria-label={mode.action === 'add' ? 'Add a passkey' : 'Remove a passkey'}>
          {mode.action === 'add' && (
            <Field label="Passkey name" error={errors.name}>
              {(p) => <input {...p} maxLength={64} {...input('name')} />}
            </Field>
          )}
          {user.has_password && (
            <Field label="Password" error={errors.password}>
              {(p) => <input {...p} type="password" autocomplete="current-password" {...input('password')} />}
            </Field>
          )}
          <SendCode action={mode.action === 'add' ? 'add_passkey' : 'remove_passkey'} />
          <Field label="Code" error={errors.code}>
            {(p) => <input {...p} inputMode="numeric" autocomplete="one-time-code" {...input('code')} />}
          </Field>
          <FormError error={errors.form} />
          <div class="actions">
            <button type="button" onClick={() => setMode(null)}>
              Cancel
            </button>
            <button type="submit" class={mode.action === 'add' ? 'primary' : 'danger'} disabled={busy}>
              {mode.action === 'add' ? 'Create passkey' : 'Remove passkey'}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
