const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** One line of the input: its text, or — past the bound — only how long it was. */
export type BoundedLine = { text: string; bytes: number } | { text: undefined; bytes: number };

/**
 * The lines of a byte stream, split at `\n` as the upload's counter counts them
 * (line-counter.ts; a `\r` before it is dropped), each decoded as UTF-8 once it is whole. A line
 * longer than `maxBytes` is never held: its bytes are dropped as they arrive and it is yielded with
 * its length only, so at most `maxBytes` of one line (and the chunk being read) is in memory —
 * unlike node:readline, which builds every line whole, however long. A last line without `\n`
 * counts; nothing after the last `\n` is no line.
 */
export async function* boundedLines(input: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<BoundedLine> {
  let pieces: Buffer[] = [];
  let bytes = 0;
  const add = (piece: Buffer) => {
    bytes += piece.length;
    if (bytes > maxBytes) pieces = [];
    else if (piece.length > 0) pieces.push(piece);
  };
  const take = (): BoundedLine => {
    const line = bytes > maxBytes ? { text: undefined, bytes } : { text: decode(pieces), bytes };
    pieces = [];
    bytes = 0;
    return line;
  };
  for await (const chunk of input) {
    let start = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
      add(chunk.subarray(start, at));
      start = at + 1;
      yield take();
    }
    add(chunk.subarray(start));
  }
  if (bytes > 0) yield take();
}

function decode(pieces: Buffer[]): string {
  const whole = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  const end = whole.length > 0 && whole[whole.length - 1] === CARRIAGE_RETURN ? whole.length - 1 : whole.length;
  return whole.toString('utf8', 0, end);
}
