import { useState } from 'preact/hooks';
import type { WebhookWithSecret } from '../../api/models';

/**
 * The one view of an endpoint's signing secret, after creation or rotation. As with a key's
 * secret, it lives only in this component's props: nothing stores it or puts it in a URL.
 */
export function NewWebhookSecret({
  endpoint,
  rotated,
  onDone,
}: {
  endpoint: WebhookWithSecret;
  rotated: boolean;
  onDone(): void;
}) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  async function copy() {
    try {
      await navigator.clipboard.writeText(endpoint.secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }
  return (
    <section class="card secret" aria-labelledby="new-webhook-title">
      <h2 id="new-webhook-title">
        {rotated ? 'New signing secret' : 'Webhook created'} for <code>{endpoint.url}</code>
      </h2>
      <p>
        Copy the signing secret now: it is shown only this once. Verify each delivery's <code>webhook-signature</code>{' '}
        with it.
        {rotated && ' The previous secret keeps signing beside it for 24 hours.'}
      </p>
      <div class="secret-row">
        <output aria-label="New webhook secret">
          <code>{endpoint.secret}</code>
        </output>
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p role="status" aria-live="polite" class="muted">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'The browser refused the clipboard: select the secret and copy it by hand.'
            : ''}
      </p>
      <button type="button" class="primary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
