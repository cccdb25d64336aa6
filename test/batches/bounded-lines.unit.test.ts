// The validation's line reader (shared/batches/bounded-lines.ts): lines split at \n whatever the
// chunks, CRLF, a last line without \n, characters cut between chunks, and a line over the bound
// yielded with its length only while the lines around it come through whole.
import { describe, expect, it } from 'vitest';
import { boundedLines, type BoundedLine } from '../../shared/batches/bounded-lines.js';

async function read(chunks: readonly (string | Buffer)[], maxBytes: number): Promise<BoundedLine[]> {
  async function* source() {
    for (const c of chunks) yield typeof c === 'string' ? Buffer.from(c) : c;
  }
  const out: BoundedLine[] = [];
  for await (const line of boundedLines(source(), maxBytes)) out.push(line);
  return out;
}

const texts = (lines: BoundedLine[]) => lines.map((l) => l.text);

describe('boundedLines', () => {
  it('splits at \\n wherever the chunks break, drops a \\r before it, keeps empty lines and a last line without \\n', async () => {
    expect(texts(await read(['a\nb', 'c\r\n\n', 'd\re', '\nlast'], 100))).toEqual(['a', 'bc', '', 'd\re', 'last']);
    expect(texts(await read(['one\n', 'two\n'], 100))).toEqual(['one', 'two']);
    expect(texts(await read(['\n'], 100))).toEqual(['']);
    expect(await read([], 100)).toEqual([]);
  });

  it('decodes a character cut between two chunks whole', async () => {
    const bytes = Buffer.from('é€😀\n');
    const chunks = Array.from(bytes, (b) => Buffer.from([b]));
    expect(await read(chunks, 100)).toEqual([{ text: 'é€😀', bytes: bytes.length - 1 }]);
  });

  it('keeps a line of exactly the bound; a longer one comes with its length only, the next line whole', async () => {
    const exact = 'x'.repeat(10);
    expect(await read([`${exact}\n`], 10)).toEqual([{ text: exact, bytes: 10 }]);
    const lines = await read(['short\n', 'y'.repeat(6), 'y'.repeat(6), 'y'.repeat(6), '\nafter\n', 'z'.repeat(11)], 10);
    expect(lines).toEqual([
      { text: 'short', bytes: 5 },
      { text: undefined, bytes: 18 },
      { text: 'after', bytes: 5 },
      { text: undefined, bytes: 11 },
    ]);
  });
});
