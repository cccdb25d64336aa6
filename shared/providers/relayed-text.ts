/**
 * Bytes of the JSON string values that follow any of `keys` (each written up to the value's opening
 * quote: `content":"`) in complete events, text[0, length): how much text a stream relayed, which
 * bills a stream that ended before the upstream's final count (shared/billing/estimate.ts). `text`
 * is the scanners' latin1 copy (one character per byte), so a value counts as the bytes it was sent
 * as (`\n` is two). A key cannot be matched inside a string value: its quotes would be escaped.
 * Runs on every chunk of every stream, one search per key: keys start with a letter, not a quote
 * (a search tries every place its first character occurs, and a quote starts every key).
 */
export function stringValueBytes(text: string, keys: readonly string[], length: number): number {
  let bytes = 0;
  for (const key of keys) {
    let at = text.indexOf(key);
    while (at !== -1 && at < length) {
      const start = at + key.length;
      const end = closingQuote(text, start);
      if (end === -1 || end > length) break;
      bytes += end - start;
      at = text.indexOf(key, end + 1);
    }
  }
  return bytes;
}

/** The quote that ends a JSON string whose value starts at `from` (one preceded by an even run of backslashes). */
export function closingQuote(text: string, from: number): number {
  let quote = text.indexOf('"', from);
  while (quote !== -1 && text.charCodeAt(quote - 1) === BACKSLASH) {
    let run = 1;
    while (text.charCodeAt(quote - 1 - run) === BACKSLASH) run++;
    if (run % 2 === 0) break;
    quote = text.indexOf('"', quote + 1);
  }
  return quote;
}

const BACKSLASH = 92;
