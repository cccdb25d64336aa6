import { z } from 'zod';

/** The digits of an e-mailed code. */
export const codeField = z.string().regex(/^\d{6,10}$/, 'must be the digits of the e-mailed code');

/** `{password, code}` of a sensitive action; the password may be left out by an account without one. */
export const confirmation = z.strictObject({
  password: z.string().min(1).max(1024).optional(),
  code: codeField,
});
