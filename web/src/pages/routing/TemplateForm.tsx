import { useState } from 'preact/hooks';
import { fieldErrors, type FieldErrors } from '../../api/field-errors';
import type { Key } from '../../api/models';
import { Field, FormError } from '../../components/Field';

export interface TemplateView {
  id: string;
  name: string;
  versions: { id: string; label: string; text: string; weight: number; variables: string[] }[];
  key_ids: string[];
}

export interface TemplateBody {
  name: string;
  versions: { label: string; text: string; weight: number }[];
  key_ids: string[];
}

/** A prompt template: its weighted versions (an A/B test when several carry weight) and the keys it is bound to. */
export function TemplateForm({
  editing,
  keys,
  onSubmit,
  onCancel,
}: {
  editing?: TemplateView;
  keys: Key[];
  onSubmit(body: TemplateBody): Promise<void>;
  onCancel(): void;
}) {
  const [name, setName] = useState(editing?.name ?? '');
  const [versions, setVersions] = useState(
    editing?.versions.map((v) => ({ label: v.label, text: v.text, weight: String(v.weight) })) ?? [
      { label: 'A', text: '', weight: '1' },
    ],
  );
  const [keyIds, setKeyIds] = useState<Set<string>>(new Set(editing?.key_ids ?? []));
  const [errors, setErrors] = useState<FieldErrors<'name' | 'versions'>>({});
  const [busy, setBusy] = useState(false);
  const setVersion = (i: number, patch: Partial<(typeof versions)[number]>) =>
    setVersions(versions.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      await onSubmit({
        name: name.trim(),
        versions: versions.map((v) => ({ label: v.label.trim(), text: v.text, weight: Number(v.weight) })),
        key_ids: [...keyIds],
      });
    } catch (err) {
      setErrors(fieldErrors(err, {}, { name: 'name', versions: 'versions' }));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form
      class="card"
      onSubmit={submit}
      noValidate
      aria-label={editing ? `Edit template ${editing.name}` : 'New prompt template'}
    >
      <Field label="Template name" error={errors.name}>
        {(p) => <input {...p} maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      {versions.map((v, i) => (
        <fieldset key={i}>
          <legend>Version {i + 1}</legend>
          <div class="row">
            <Field label={`Version ${i + 1} label`}>
              {(p) => (
                <input
                  {...p}
                  maxLength={40}
                  value={v.label}
                  onInput={(e) => setVersion(i, { label: e.currentTarget.value })}
                />
              )}
            </Field>
            <Field label={`Version ${i + 1} weight`} hint="Share of requests; 0 = off.">
              {(p) => (
                <input
                  {...p}
                  inputMode="numeric"
                  value={v.weight}
                  onInput={(e) => setVersion(i, { weight: e.currentTarget.value })}
                />
              )}
            </Field>
          </div>
          <Field
            label={`Version ${i + 1} text`}
            hint="Put in front of the system prompt. Variables: {{name}} or {{name|default}}."
          >
            {(p) => (
              <textarea
                {...p}
                rows={4}
                value={v.text}
                onInput={(e) => setVersion(i, { text: e.currentTarget.value })}
              />
            )}
          </Field>
          {versions.length > 1 && (
            <button type="button" onClick={() => setVersions(versions.filter((_, j) => j !== i))}>
              Remove version {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      {errors.versions && (
        <p class="error" role="alert">
          {errors.versions}
        </p>
      )}
      {versions.length < 10 && (
        <button
          type="button"
          onClick={() =>
            setVersions([...versions, { label: String.fromCharCode(65 + versions.length), text: '', weight: '1' }])
          }
        >
          Add a version
        </button>
      )}
      <fieldset>
        <legend>Bound to keys</legend>
        {keys.length === 0 && <p class="muted">No keys to bind.</p>}
        {keys.map((k) => (
          <div class="check" key={k.id}>
            <input
              id={`bind-${k.id}`}
              type="checkbox"
              checked={keyIds.has(k.id)}
              onChange={(e) => {
                const next = new Set(keyIds);
                if (e.currentTarget.checked) next.add(k.id);
                else next.delete(k.id);
                setKeyIds(next);
              }}
            />
            <label for={`bind-${k.id}`}>
              {k.name || '(unnamed)'}{' '}
              <code>
                {k.prefix}…{k.last4}
              </code>
            </label>
          </div>
        ))}
      </fieldset>
      <FormError error={errors.form} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {editing ? 'Save template' : 'Create template'}
        </button>
      </div>
    </form>
  );
}
