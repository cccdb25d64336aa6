// The validation's line reader holds at most its bound of one line: a 256 MiB line, read from
// fresh 64 KiB chunks (as an object store's stream gives them), leaves the process's heap and
// buffers where they were (collected after every 16 MiB), where node:readline would build a
// 256 MiB string. Isolated: it measures this process's own memory.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { boundedLines, type BoundedLine } from '../../shared/batches/bounded-lines.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;
const LINE = 256 * MiB;
const CHUNK = 64 * 1024;

const used = () => {
  // Twice: the first collection's freed buffers are swept in the background, the second waits for it.
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

it('reads a 256 MiB line with a 1 MiB bound holding no more than the bound', async () => {
  const baseline = used();
  let peak = 0;
  async function* source() {
    for (let sent = 0; sent < LINE; sent += CHUNK) {
      if (sent % (16 * MiB) === 0) peak = Math.max(peak, used() - baseline);
      yield Buffer.alloc(CHUNK, 0x78);
    }
    yield Buffer.from('\n{"next": true}\n');
  }
  const lines: BoundedLine[] = [];
  for await (const line of boundedLines(source(), MiB)) lines.push(line);
  expect(lines).toEqual([
    { text: undefined, bytes: LINE },
    { text: '{"next": true}', bytes: 14 },
  ]);
  expect(peak).toBeLessThan(8 * MiB);
});
