import { z } from 'zod';

// Fields the account-security bodies share.

export const emailField = z.email('must be an e-mail address').max(320);

/** No user has this id: an unknown e-mail's code check costs the same query as a real one's. */
export const NOBODY = '00000000-0000-0000-0000-000000000000';

/** The digits of an e-mailed code. */
export const codeField = z.string().regex(/^\d{6,10}$/, 'must be the digits of the e-mailed code');

/** `{password, code}` of a sensitive action; the password may be left out by an account without one. */
export const confirmation = z.strictObject({
  password: z.string().min(1).max(1024).optional(),
  code: codeField,
});
