import { useState } from 'preact/hooks';
import type { NewKey } from '../../api/models';
import { useConsole } from '../../context';

/**
 * The one view of a new key's secret. It lives only in this component's props: closing it drops
 * the last reference, and nothing stores it (no URL, no storage, no log).
 */
export function NewKeySecret({ created, onDone }: { created: NewKey; onDone(): void }) {
  const { config } = useConsole();
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }
  return (
    <section class="card secret" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Key “{created.name || created.prefix}” created</h2>
      <p>Copy the secret now: it is shown only this once. Store it like a password.</p>
      <div class="secret-row">
        {/* The accessible name is the interface browser tests and screen readers use (DESIGN.md). */}
        <output id="new-key-secret" aria-label="New key secret">
          <code>{created.key}</code>
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
      {config.gateway_url && (
        <p class="hint">
          Use it with base URL <code>{config.gateway_url}/v1</code>.
        </p>
      )}
      <button type="button" class="primary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
