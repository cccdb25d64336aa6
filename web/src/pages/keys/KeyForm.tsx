import { useState } from 'preact/hooks';
import { fieldErrors } from '../../api/field-errors';
import type { Group, Key, Preset } from '../../api/models';
import { Field, FormError } from '../../components/Field';
import {
  KEY_CODES,
  KEY_PARAMS,
  formOf,
  toBody,
  type KeyCreateBody,
  type KeyField,
  type KeyFormState,
} from '../key-settings';

/** A prompt template as the key form offers it: a key runs at most one. */
export interface TemplateChoice {
  id: string;
  name: string;
  key_ids: string[];
}

interface KeyFormProps {
  /** The key being edited; none = a new key. */
  editing?: Key;
  groups: Group[];
  presets: Preset[];
  templates: TemplateChoice[];
  submitLabel: string;
  /** `templateId`: the template the key should run ('' = none), bound on the template itself. */
  onSubmit(body: KeyCreateBody, templateId: string): Promise<void>;
  onCancel(): void;
}

/** Every setting of a key: name, group, expiry, IP allowlist, rate limits, caps, budget, tags, access, preset. */
export function KeyForm({ editing, groups, presets, templates, submitLabel, onSubmit, onCancel }: KeyFormProps) {
  const [form, setForm] = useState<KeyFormState>(() => formOf(editing));
  const [templateId, setTemplateId] = useState(
    () => (editing && templates.find((t) => t.key_ids.includes(editing.id))?.id) ?? '',
  );
  const [errors, setErrors] = useState<Partial<Record<KeyField | 'template' | 'form', string>>>({});
  const [busy, setBusy] = useState(false);
  const set =
    <F extends keyof KeyFormState>(field: F) =>
    (value: KeyFormState[F]) =>
      setForm((f) => ({ ...f, [field]: value }));
  const text = (field: KeyField & keyof KeyFormState) => ({
    value: form[field] as string,
    onInput: (e: Event) => set(field)((e.currentTarget as HTMLInputElement).value),
  });

  async function submit(event: Event) {
    event.preventDefault();
    const result = toBody(form);
    if ('errors' in result) return setErrors(result.errors);
    setBusy(true);
    setErrors({});
    try {
      await onSubmit(editing ? result.body : { ...result.body, kind: form.kind }, templateId);
    } catch (err) {
      setErrors(fieldErrors(err, KEY_CODES, KEY_PARAMS));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="key-form" onSubmit={submit} noValidate>
      <Field label="Name" error={errors.name}>
        {(p) => <input {...p} name="name" maxLength={100} {...text('name')} />}
      </Field>
      {!editing && (
        <Field label="Kind" hint="Private keys (ak-) call the private protocol under /server.">
          {(p) => (
            <select
              {...p}
              value={form.kind}
              onChange={(e) => set('kind')(e.currentTarget.value as KeyFormState['kind'])}
            >
              <option value="standard">Standard (sk-)</option>
              <option value="private">Private protocol (ak-)</option>
            </select>
          )}
        </Field>
      )}
      <Field label="Group" error={errors.group} hint="Which models the key may call, and at what discount.">
        {(p) => (
          <select {...p} value={form.group} onChange={(e) => set('group')(e.currentTarget.value)}>
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.id}
                {g.discount_percent ? ` (−${g.discount_percent} %)` : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Expires" error={errors.expires_at} hint="Leave empty for a key that never expires.">
        {(p) => <input {...p} type="datetime-local" {...text('expires_at')} />}
      </Field>
      <Field
        label="IP allowlist"
        error={errors.ip_allowlist}
        hint="Addresses or CIDR ranges, one per line; empty = any address."
      >
        {(p) => <textarea {...p} rows={3} {...text('ip_allowlist')} />}
      </Field>
      <fieldset>
        <legend>Rate limits (empty = no limit)</legend>
        <div class="row">
          <Field label="Requests per minute" error={errors.rpm_limit}>
            {(p) => <input {...p} inputMode="numeric" {...text('rpm_limit')} />}
          </Field>
          <Field label="Tokens per minute" error={errors.tpm_limit}>
            {(p) => <input {...p} inputMode="numeric" {...text('tpm_limit')} />}
          </Field>
          <Field label="Concurrent requests" error={errors.concurrency_limit}>
            {(p) => <input {...p} inputMode="numeric" {...text('concurrency_limit')} />}
          </Field>
        </div>
      </fieldset>
      <fieldset>
        <legend>Spending caps in USD (empty = no cap)</legend>
        <div class="row">
          <Field label="Total cap (USD)" error={errors.total_usd}>
            {(p) => <input {...p} inputMode="decimal" {...text('total_usd')} />}
          </Field>
          <Field label="Daily cap (USD)" error={errors.daily_usd}>
            {(p) => <input {...p} inputMode="decimal" {...text('daily_usd')} />}
          </Field>
          <Field label="Monthly cap (USD)" error={errors.monthly_usd}>
            {(p) => <input {...p} inputMode="decimal" {...text('monthly_usd')} />}
          </Field>
        </div>
      </fieldset>
      <fieldset>
        <legend>Budget (empty = none)</legend>
        <p class="hint">
          A hard limit per UTC period: calls that would pass it are refused with 402, counting calls in flight.
        </p>
        <div class="row">
          <Field label="Budget (USD)" error={errors.budget_usd}>
            {(p) => <input {...p} inputMode="decimal" {...text('budget_usd')} />}
          </Field>
          <Field label="Budget period" error={errors.budget_period}>
            {(p) => (
              <select
                {...p}
                value={form.budget_period}
                onChange={(e) => set('budget_period')(e.currentTarget.value as KeyFormState['budget_period'])}
              >
                <option value="day">Day</option>
                <option value="week">Week (from Monday)</option>
                <option value="month">Month</option>
                <option value="total">Total (never resets)</option>
              </select>
            )}
          </Field>
          <Field
            label="Warning at (% of budget)"
            error={errors.budget_soft_percent}
            hint="E-mails you once per period when spending reaches it."
          >
            {(p) => <input {...p} inputMode="numeric" {...text('budget_soft_percent')} />}
          </Field>
        </div>
      </fieldset>
      <Field label="Tags" error={errors.tags} hint="Comma separated, up to 10: they label the key's usage in reports.">
        {(p) => <input {...p} {...text('tags')} />}
      </Field>
      <Field
        label="Asset access"
        error={errors.asset_access}
        hint="Which uploaded assets requests with this key may reference."
      >
        {(p) => (
          <select
            {...p}
            value={form.asset_access}
            onChange={(e) => set('asset_access')(e.currentTarget.value as KeyFormState['asset_access'])}
          >
            <option value="own">Its own and the console's uploads</option>
            <option value="all">Every asset of the account</option>
            <option value="none">None</option>
          </select>
        )}
      </Field>
      <Field
        label="Default preset"
        error={errors.default_preset}
        hint="The routing preset used when a request names no model."
      >
        {(p) => (
          <select {...p} value={form.default_preset} onChange={(e) => set('default_preset')(e.currentTarget.value)}>
            <option value="">None</option>
            {presets.map((preset) => (
              <option key={preset.slug} value={preset.slug}>
                @preset/{preset.slug}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label="Response cache (seconds)"
        error={errors.cache_ttl_seconds}
        hint="How long identical requests are answered from the cache (up to 2592000, 30 days); 0 or empty = off unless a preset or the X-Service-Cache-TTL header turns it on."
      >
        {(p) => <input {...p} inputMode="numeric" {...text('cache_ttl_seconds')} />}
      </Field>
      <div class="check">
        <input
          id="usage-access"
          type="checkbox"
          checked={form.usage_access}
          onChange={(e) => set('usage_access')(e.currentTarget.checked)}
        />
        <label for="usage-access">Usage access: this key may read the whole account's usage reports and logs</label>
      </div>
      <Field
        label="Prompt template"
        error={errors.template}
        hint="Its versions are put before this key's requests (A/B by weight); a key runs one template at most."
      >
        {(p) => (
          <select {...p} value={templateId} onChange={(e) => setTemplateId(e.currentTarget.value)}>
            <option value="">None</option>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <FormError error={errors.form} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
