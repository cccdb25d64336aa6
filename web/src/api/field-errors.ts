import { ApiError } from './client';

export type FieldErrors<F extends string> = Partial<Record<F | 'form', string>>;

/**
 * Places an API failure next to the field it concerns: by its `error_code` (`codes`), or for a
 * 400 `invalid_request`/`immutable_field` by the envelope's `param`, or failing that the parameter
 * the message quotes ("invalid value for 'end'"); anything else belongs to the form.
 */
export function fieldErrors<F extends string>(
  err: unknown,
  codes: Partial<Record<string, F>>,
  params: Partial<Record<string, F>> = {},
): FieldErrors<F> {
  if (!(err instanceof ApiError)) return { form: err instanceof Error ? err.message : String(err) } as FieldErrors<F>;
  const byCode = codes[err.errorCode];
  if (byCode) return { [byCode]: err.message } as FieldErrors<F>;
  // The envelope's `param` where it has one, else the parameter the message quotes; 'ip_allowlist[0]' → ip_allowlist.
  const quoted = /^([a-z_]+)/.exec(err.param ?? '')?.[1] ?? /'([a-z_]+)(?:[.[][^']*)?'/.exec(err.message)?.[1];
  const byParam = quoted ? params[quoted] : undefined;
  if (byParam) return { [byParam]: err.message } as FieldErrors<F>;
  return { form: err.message } as FieldErrors<F>;
}
