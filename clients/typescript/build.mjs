// Builds dist/esm and dist/cjs (each with declarations) with the repository's TypeScript; the
// CommonJS folder gets a package.json of its own so Node reads its .js files as CommonJS.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsc = path.join(here, '..', '..', 'node_modules', '.bin', 'tsc');
rmSync(path.join(here, 'dist'), { recursive: true, force: true });
for (const config of ['tsconfig.esm.json', 'tsconfig.cjs.json'])
  execFileSync(tsc, ['-p', path.join(here, config)], { stdio: 'inherit' });
mkdirSync(path.join(here, 'dist', 'cjs'), { recursive: true });
writeFileSync(path.join(here, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
