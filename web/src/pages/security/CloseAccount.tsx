import { useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { useConsole } from '../../context';
import { ConfirmedAction } from './ConfirmedAction';

/** Close the account: every key revoked, every session ended, the e-mail released; the ledger stays. */
export function CloseAccount() {
  const { api, signOut } = useConsole();
  const [open, setOpen] = useState(false);
  return (
    <div>
      <h2>Close account</h2>
      <p>
        Closing revokes every key at once, ends every session and releases your e-mail address. Usage and the ledger are
        kept. This cannot be undone.
      </p>
      {!open ? (
        <button type="button" class="danger" onClick={() => setOpen(true)}>
          Close account…
        </button>
      ) : (
        <ConfirmedAction
          action="close_account"
          label="Close account"
          submit="Close my account"
          danger
          onCancel={() => setOpen(false)}
          run={async (confirm) => {
            await unwrap(api.POST('/api/v1/auth/account/close', { body: confirm }));
            await signOut();
          }}
        />
      )}
    </div>
  );
}
