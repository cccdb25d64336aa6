import { useState } from 'preact/hooks';
import { fieldErrors, type FieldErrors } from '../../api/field-errors';
import type { WebhookEndpoint, WebhookEventType } from '../../api/models';
import { Field, FormError } from '../../components/Field';

/** Every event an endpoint can subscribe to; typed by the API's schema, so a renamed event breaks the build. */
const EVENTS: readonly WebhookEventType[] = [
  'video.completed',
  'video.failed',
  'video.cancelled',
  'image_task.completed',
  'image_task.failed',
  'image_task.cancelled',
  'batch.completed',
  'batch.failed',
  'batch.expired',
  'batch.cancelled',
  'webhook.test',
];

export interface WebhookBody {
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled?: boolean;
}

type WebhookField = 'url' | 'events' | 'description' | 'enabled';
const PARAMS: Partial<Record<string, WebhookField>> = { url: 'url', events: 'events', description: 'description' };

interface WebhookFormProps {
  /** The endpoint being edited (its enabled switch is shown); none = a new endpoint. */
  editing?: WebhookEndpoint;
  submitLabel: string;
  onSubmit(body: WebhookBody): Promise<void>;
  onCancel(): void;
}

/** An endpoint's URL, description, events (checkboxes) and, when editing, whether it is enabled. */
export function WebhookForm({ editing, submitLabel, onSubmit, onCancel }: WebhookFormProps) {
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [events, setEvents] = useState<Set<WebhookEventType>>(() => new Set(editing?.events ?? []));
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const [errors, setErrors] = useState<FieldErrors<WebhookField>>({});
  const [busy, setBusy] = useState(false);

  function toggle(event: WebhookEventType, on: boolean) {
    setEvents((current) => {
      const next = new Set(current);
      if (on) next.add(event);
      else next.delete(event);
      return next;
    });
  }

  async function submit(e: Event) {
    e.preventDefault();
    const own: FieldErrors<WebhookField> = {};
    if (!url.trim()) own.url = 'Enter the URL that receives the events.';
    if (events.size === 0) own.events = 'Choose at least one event.';
    if (own.url || own.events) return setErrors(own);
    setBusy(true);
    setErrors({});
    try {
      await onSubmit({
        url: url.trim(),
        // In the list's order, whatever order they were ticked in.
        events: EVENTS.filter((ev) => events.has(ev)),
        description: description.trim() || null,
        ...(editing && { enabled }),
      });
    } catch (err) {
      setErrors(fieldErrors(err, {}, PARAMS));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      class="webhook-form"
      aria-label={editing ? 'Edit webhook' : 'New webhook'}
      onSubmit={(e) => void submit(e)}
      noValidate
    >
      <Field label="Endpoint URL" error={errors.url} hint="Where events are POSTed: https, a public address.">
        {(p) => (
          <input {...p} type="url" name="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required />
        )}
      </Field>
      <Field label="Description" error={errors.description}>
        {(p) => (
          <input {...p} maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        )}
      </Field>
      <fieldset aria-describedby={errors.events ? 'webhook-events-error' : undefined}>
        <legend>Events</legend>
        <div class="checks">
          {EVENTS.map((event) => (
            <div class="check" key={event}>
              <input
                id={`event-${event}`}
                type="checkbox"
                checked={events.has(event)}
                onChange={(e) => toggle(event, e.currentTarget.checked)}
              />
              <label for={`event-${event}`}>{event}</label>
            </div>
          ))}
        </div>
        {errors.events && (
          <p class="error" id="webhook-events-error" role="alert">
            {errors.events}
          </p>
        )}
      </fieldset>
      {editing && (
        <div class="check">
          <input
            id="webhook-enabled"
            type="checkbox"
            checked={enabled}
            onChange={(e) => setEnabled(e.currentTarget.checked)}
          />
          <label for="webhook-enabled">Enabled: deliver events to this endpoint</label>
        </div>
      )}
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
