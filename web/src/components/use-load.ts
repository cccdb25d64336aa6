import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client';

export type Load<T> = { state: 'loading' } | { state: 'error'; error: string } | { state: 'ready'; value: T };

/** One page's data: loads on mount and whenever `deps` change; `reload` fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Load<T> & { reload(): void } {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setResult((r) => (r.state === 'ready' ? r : { state: 'loading' }));
    load().then(
      (value) => live && setResult({ state: 'ready', value }),
      (err: unknown) => live && setResult({ state: 'error', error: messageOf(err) }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...result, reload };
}

export const messageOf = (err: unknown) =>
  err instanceof ApiError || err instanceof Error ? err.message : String(err);
