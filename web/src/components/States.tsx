import type { ComponentChildren } from 'preact';

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function LoadError({ error, retry }: { error: string; retry?: () => void }) {
  return (
    <div class="error form-error" role="alert">
      <span>{error}</span>{' '}
      {retry && (
        <button type="button" class="link" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
