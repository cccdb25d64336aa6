import { useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import { fieldErrors, type FieldErrors } from '../api/field-errors';
import type { User } from '../api/models';
import { Field, FormError } from '../components/Field';
import { useConsole } from '../context';

type Fields = 'nickname' | 'locale' | 'region';

/** Profile: nickname, locale (formats every date, number and amount here) and region. */
export function ProfilePage() {
  const { api, user, setUser } = useConsole();
  const [form, setForm] = useState({
    nickname: user.nickname ?? '',
    locale: user.locale ?? '',
    region: user.region ?? '',
  });
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setSaved(false);
    try {
      // Only what changed: an empty field the user never set stays unset.
      const body = Object.fromEntries(
        Object.entries(form).filter(([k, v]) => v.trim() !== (user[k as Fields] ?? '')),
      ) as { nickname?: string; locale?: string; region?: string };
      setUser(await unwrap<User>(api.PATCH('/api/v1/auth/me', { body })));
      setSaved(true);
    } catch (err) {
      setErrors(fieldErrors(err, {}, { nickname: 'nickname', locale: 'locale', region: 'region' }));
    } finally {
      setBusy(false);
    }
  }
  const input = (field: Fields) => ({
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
  });
  return (
    <section aria-labelledby="profile-title">
      <h1 id="profile-title">Profile</h1>
      <form class="card" onSubmit={submit} noValidate>
        <p>
          Signed in as <strong>{user.email}</strong>
        </p>
        <Field label="Nickname" error={errors.nickname}>
          {(p) => <input {...p} maxLength={64} autocomplete="nickname" {...input('nickname')} />}
        </Field>
        <Field
          label="Locale"
          error={errors.locale}
          hint={`A language tag such as en-US or de-DE; empty = your browser's (${navigator.language}).`}
        >
          {(p) => <input {...p} autocomplete="language" {...input('locale')} />}
        </Field>
        <Field label="Region" error={errors.region} hint="A two-letter country code such as US or DE.">
          {(p) => <input {...p} maxLength={2} autocomplete="country" {...input('region')} />}
        </Field>
        <FormError error={errors.form} />
        {saved && <p role="status">Profile saved.</p>}
        <button type="submit" class="primary" disabled={busy}>
          Save profile
        </button>
      </form>
    </section>
  );
}
