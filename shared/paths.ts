import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This file is shared/paths.ts in the source tree, dist/shared/paths.js when built and
// dist-bench/shared/paths.js in the benchmarks' build.
const here = path.dirname(fileURLToPath(import.meta.url));
const root = ['dist', 'dist-bench'].includes(path.basename(path.dirname(here)))
  ? path.resolve(here, '..', '..')
  : path.resolve(here, '..');

/** A path inside the project (migrations/, catalog examples), wherever the code runs from. */
export function projectPath(...parts: string[]): string {
  return path.join(root, ...parts);
}
