// Refreshes test/support/file-durations.json (the order SlowFirstSequencer starts files in) from
// the durations vitest cached during the last `npm test`: run the whole suite, then this.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cacheDir = path.join(root, 'node_modules/.vite/vitest');
const target = path.join(root, 'test/support/file-durations.json');

const previous = JSON.parse(readFileSync(target, 'utf8'));
const seconds = { ...previous.seconds };
for (const dir of readdirSync(cacheDir)) {
  const { results } = JSON.parse(readFileSync(path.join(cacheDir, dir, 'results.json'), 'utf8'));
  // Keys are `project:path`; a file belongs to one project. A failed run's time says little.
  for (const [key, { duration, failed }] of results)
    if (duration && !failed) seconds[key.slice(key.indexOf(':') + 1)] = Math.round(duration / 100) / 10;
}
// Files since removed or renamed go; the sequencer gives a file it does not know the median.
const kept = Object.entries(seconds)
  .filter(([file]) => existsSync(path.join(root, file)))
  .sort(([a], [b]) => (a < b ? -1 : 1));
writeFileSync(target, `${JSON.stringify({ ...previous, seconds: Object.fromEntries(kept) }, null, 2)}\n`);
console.log(`${kept.length} files in ${path.relative(process.cwd(), target)}`);
