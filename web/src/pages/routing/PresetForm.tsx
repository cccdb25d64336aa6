import { useState } from 'preact/hooks';
import { fieldErrors, type FieldErrors } from '../../api/field-errors';
import type { paths } from '../../api/schema';
import { Field, FormError } from '../../components/Field';

export interface PresetView {
  slug: string;
  model: string;
  models: string[];
  strategy: 'ordered' | 'cost' | 'latency' | 'weighted';
  weights: number[] | null;
  preferred_providers: { order?: string[]; only?: string[] } | null;
}

export type PresetBody = paths['/api/v1/presets']['post']['requestBody']['content']['application/json'];
type Fields = 'slug' | 'models' | 'strategy' | 'weights' | 'order' | 'only';

const list = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** A routing preset: slug (fixed once created), models in order, strategy, weights, preferred providers. */
export function PresetForm({
  editing,
  onSubmit,
  onCancel,
}: {
  editing?: PresetView;
  onSubmit(body: PresetBody): Promise<void>;
  onCancel(): void;
}) {
  const [form, setForm] = useState({
    slug: editing?.slug ?? '',
    models: editing?.models.join('\n') ?? '',
    strategy: editing?.strategy ?? 'ordered',
    weights: editing?.weights?.join(', ') ?? '',
    order: editing?.preferred_providers?.order?.join(', ') ?? '',
    only: editing?.preferred_providers?.only?.join(', ') ?? '',
  });
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [busy, setBusy] = useState(false);
  const input = (field: Fields) => ({
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
  });
  async function submit(event: Event) {
    event.preventDefault();
    const weights = list(form.weights).map(Number);
    if (weights.some((w) => !Number.isInteger(w) || w < 0))
      return setErrors({ weights: 'Whole numbers, one per model.' });
    const preferred = {
      ...(form.order.trim() && { order: list(form.order) }),
      ...(form.only.trim() && { only: list(form.only) }),
    };
    setBusy(true);
    setErrors({});
    try {
      await onSubmit({
        slug: form.slug.trim(),
        models: list(form.models),
        strategy: form.strategy,
        weights: weights.length ? weights : null,
        preferred_providers: Object.keys(preferred).length ? preferred : null,
      });
    } catch (err) {
      setErrors(
        fieldErrors(
          err,
          { conflict: 'slug' },
          { slug: 'slug', models: 'models', strategy: 'strategy', weights: 'weights', preferred_providers: 'order' },
        ),
      );
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="card" onSubmit={submit} noValidate aria-label={editing ? `Edit preset ${editing.slug}` : 'New preset'}>
      <Field label="Slug" error={errors.slug} hint="Called as @preset/<slug>: lower-case letters, digits and hyphens.">
        {(p) => <input {...p} readOnly={Boolean(editing)} {...input('slug')} />}
      </Field>
      <Field label="Models" error={errors.models} hint="One per line, tried in this order.">
        {(p) => <textarea {...p} rows={3} {...input('models')} />}
      </Field>
      <Field label="Strategy" error={errors.strategy}>
        {(p) => (
          <select
            {...p}
            value={form.strategy}
            onChange={(e) => setForm({ ...form, strategy: e.currentTarget.value as PresetView['strategy'] })}
          >
            <option value="ordered">In order</option>
            <option value="cost">Cheapest first</option>
            <option value="latency">Fastest first</option>
            <option value="weighted">Weighted</option>
          </select>
        )}
      </Field>
      <Field
        label="Weights"
        error={errors.weights}
        hint="With the weighted strategy: one whole number per model, comma separated."
      >
        {(p) => <input {...p} {...input('weights')} />}
      </Field>
      <div class="row">
        <Field label="Preferred providers" error={errors.order} hint="Tried first, in this order.">
          {(p) => <input {...p} {...input('order')} />}
        </Field>
        <Field label="Only these providers" error={errors.only}>
          {(p) => <input {...p} {...input('only')} />}
        </Field>
      </div>
      <FormError error={errors.form} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {editing ? 'Save preset' : 'Create preset'}
        </button>
      </div>
    </form>
  );
}
