// An escaped printable ASCII character (`"max_tok\u0065ns"`): JSON.parse reads such a key as the
// plain name, so a search of the bytes for the name would miss it.
const ASCII_ESCAPE = /\\u00[2-7][0-9a-f]/i;

function atMostOnce(text: string, needle: string): boolean {
  const first = text.indexOf(needle);
  return first === -1 || text.indexOf(needle, first + 1) === -1;
}

/**
 * Whether a client's bytes may go upstream as they came: with a field the gateway reads (to route,
 * price or refuse a call) twice, another JSON parser could read another value than JSON.parse did
 * (the last one), so such a body is sent re-serialised, as the gateway understood it. Searched in a
 * latin1 copy (see shared/providers/stream-scanner.ts): `once` must appear at most once, `never`
 * not at all (a field the gateway removes, or one whose nested values it checked), and no name may
 * hide behind a `\u` escape of an ASCII character. Quoted names in the text of a message only cost
 * a re-serialisation.
 */
export function rawForwardable(raw: Buffer, once: readonly string[], never: readonly string[]): boolean {
  const text = raw.toString('latin1');
  if (ASCII_ESCAPE.test(text)) return false;
  return once.every((f) => atMostOnce(text, f)) && never.every((f) => !text.includes(f));
}
