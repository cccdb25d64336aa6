import { useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import type { Session } from '../../api/models';
import { LoadError, Loading } from '../../components/States';
import { messageOf, useLoad } from '../../components/use-load';
import { useConsole } from '../../context';
import { formatDateTime } from '../../format';

/** The live sessions, each revocable but this one. */
export function SessionList() {
  const { api, locale } = useConsole();
  const sessions = useLoad(() => unwrap<Session[]>(api.GET('/api/v1/auth/sessions')), []);
  const [error, setError] = useState<string>();
  async function revoke(id: string) {
    setError(undefined);
    try {
      await unwrap(api.POST('/api/v1/auth/sessions/{id}/revoke', { params: { path: { id } } }));
      sessions.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  }
  return (
    <div>
      <h2>Sessions</h2>
      {sessions.state === 'loading' && <Loading what="sessions" />}
      {sessions.state === 'error' && <LoadError error={sessions.error} retry={sessions.reload} />}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {sessions.state === 'ready' && (
        <ul class="plain sessions">
          {sessions.value.map((s) => (
            <li key={s.id}>
              <div>
                <strong>{s.user_agent ?? 'Unknown browser'}</strong>{' '}
                {s.current && <span class="badge active">this session</span>}
                <div class="muted">
                  {s.ip ?? 'unknown address'} · signed in {formatDateTime(s.created_at, locale)} · expires{' '}
                  {formatDateTime(s.expires_at, locale)}
                </div>
              </div>
              {!s.current && (
                <button type="button" class="danger" onClick={() => void revoke(s.id)}>
                  End session
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
