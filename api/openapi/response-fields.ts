import { z } from 'zod';

/**
 * The pieces the routes' response schemas (`response` of a route declaration) are built from.
 * A schema describes the answer as it goes on the wire, so it holds the JSON of a view, not its
 * row: a moment is its ISO 8601 string, money and counts are whole numbers (integer micro-USD).
 */

/** A moment as the gateway writes it: `Date.toISOString()` (UTC, milliseconds). */
export const timestamp = z.iso.datetime();

/** A whole number: a count, a size, an amount of integer micro-USD. */
export const whole = z.number().int();

type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Compiles only where a view function's result and its response schema's type are one type:
 * `sameType<ReturnType<typeof keyView>, z.infer<typeof keyAnswer>>(true)` beside a schema whose
 * view is a named function, so a field renamed in one and not the other fails `tsc` before any
 * test runs. Does nothing at run time.
 */
export function sameType<A, B>(_proof: SameType<A, B>): void {}
