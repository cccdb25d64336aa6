import { useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import type { CodeSent } from '../../api/models';
import type { paths } from '../../api/schema';
import { messageOf } from '../../components/use-load';
import { useConsole } from '../../context';

export type SensitiveAction =
  paths['/api/v1/auth/sensitive-code']['post']['requestBody']['content']['application/json']['action'];

/** "Send code": e-mails the one-time code a sensitive action needs. */
export function SendCode({ action }: { action: SensitiveAction }) {
  const { api, user } = useConsole();
  const [state, setState] = useState<{ sent?: CodeSent; error?: string; busy?: boolean }>({});
  async function send() {
    setState({ busy: true });
    try {
      setState({ sent: await unwrap<CodeSent>(api.POST('/api/v1/auth/sensitive-code', { body: { action } })) });
    } catch (err) {
      setState({ error: messageOf(err) });
    }
  }
  return (
    <div class="send-code">
      <button type="button" onClick={send} disabled={state.busy}>
        {state.sent ? 'Send another code' : 'Send code'}
      </button>
      <span role="status" aria-live="polite" class="muted">
        {state.sent && `Code sent to ${user.email}.`}
      </span>
      {state.error && (
        <span class="error" role="alert">
          {state.error}
        </span>
      )}
    </div>
  );
}
