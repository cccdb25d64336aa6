import { useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { messageOf } from '../../components/use-load';
import { useConsole } from '../../context';
import { formatNumber } from '../../format';

/** DELETE /api/v1/cache's answer: how many cached answers were removed. */
interface Purged {
  purged: number;
}

/**
 * Purges the account's response cache (every key's entries, docs/reference/cache.md) after a
 * confirmation, and says how many answers went. The hit ratio beside it is history and stays.
 */
export function CachePurge() {
  const { api, locale } = useConsole();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<string>();

  async function purge() {
    setBusy(true);
    setError(undefined);
    try {
      const { purged } = await unwrap<Purged>(api.DELETE('/api/v1/cache'));
      setResult(
        purged === 0
          ? 'The cache held no answers.'
          : `Purged ${formatNumber(purged, locale)} cached ${purged === 1 ? 'answer' : 'answers'}.`,
      );
      setConfirming(false);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <button
        type="button"
        class="link"
        onClick={() => {
          setResult(undefined);
          setConfirming(true);
        }}
      >
        Purge response cache
      </button>
      <p class="muted" role="status">
        {result}
      </p>
      {confirming && (
        <ConfirmDialog
          title="Purge the response cache?"
          confirm="Purge cache"
          busy={busy}
          onConfirm={() => void purge()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Every cached answer of your account is removed, for every key. The next identical requests go to the
            providers again and are charged in full.
          </p>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
