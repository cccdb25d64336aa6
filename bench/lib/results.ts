import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes a benchmark's markdown report to `BENCH_RESULTS_DIR` (default `bench/results/`) as `file`, and prints it. */
export async function publishResult(root: string, file: string, markdown: string): Promise<void> {
  const dir = process.env.BENCH_RESULTS_DIR
    ? path.resolve(process.env.BENCH_RESULTS_DIR)
    : path.join(root, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, file), markdown);
  process.stdout.write(markdown);
}
