import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface ConfirmDialogProps {
  title: string;
  children: ComponentChildren;
  confirm: string;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/** A modal confirmation (the native <dialog>: focus trapped, Escape cancels) before anything destructive. */
export function ConfirmDialog({ title, children, confirm, busy, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onCancel={onCancel} onClose={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div class="actions">
        <button type="button" onClick={onCancel} autofocus>
          Cancel
        </button>
        <button type="button" class="danger" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </dialog>
  );
}
