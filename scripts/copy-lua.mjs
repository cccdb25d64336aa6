// Copies the Lua scripts beside the modules that read them, into a compiled tree (tsc copies only
// what it compiles): node scripts/copy-lua.mjs <outDir>, e.g. dist.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.resolve(root, process.argv[2] ?? 'dist');

for (const top of ['api', 'workers', 'shared', 'bin']) {
  for (const entry of readdirSync(path.join(root, top), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.lua')) continue;
    const from = path.join(entry.parentPath ?? entry.path, entry.name);
    cpSync(from, path.join(outDir, path.relative(root, from)));
  }
}
