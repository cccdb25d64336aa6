import { timingSafeEqual } from 'node:crypto';

/** Whether a given secret equals the expected one, in time that does not depend on where they differ. */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
