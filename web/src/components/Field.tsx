import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: string;
  /** The error shown under the field (and announced): from the API's error_code, or the form's own check. */
  error?: string | undefined;
  hint?: string;
  children: (props: {
    id: string;
    'aria-invalid': boolean;
    'aria-describedby': string | undefined;
  }) => ComponentChildren;
}

/** A labelled control with its hint and its error next to it. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': described })}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** An error that belongs to the form as a whole. */
export function FormError({ error }: { error: string | undefined }) {
  return error ? (
    <p class="error form-error" role="alert">
      {error}
    </p>
  ) : null;
}
