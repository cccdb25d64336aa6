import type { z } from 'zod';
import { badRequest } from './errors.js';

/** Parses with zod; the first problem becomes a 400 naming the field (`messages[0].role`). */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue ? fieldPath(issue.path) : '';
  throw badRequest(
    field ? `invalid value for '${field}': ${issue?.message}` : (issue?.message ?? 'invalid request'),
    field || undefined,
  );
}

export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)),
    '',
  );
}
