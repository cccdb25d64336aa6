import { badRequest } from '../errors.js';

const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

/** `X-Session-Id`: the client's session (1-128 printable ASCII characters), recorded for scores and logs. */
export function sessionIdOf(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  if (!SESSION_ID.test(header))
    throw badRequest('X-Session-Id must be 1-128 printable ASCII characters', 'X-Session-Id');
  return header;
}
