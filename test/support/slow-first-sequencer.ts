import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'file-durations.json');

/** The project order: see `sort`. A project not named here goes last. */
const PROJECT_ORDER = ['isolated', 'process', 'integration', 'unit'];

/**
 * The order in which `npm test` hands files to its two workers. The run ends when the later worker
 * finishes, so the longest files start first and the short ones even out the end; a long file
 * started last would run on alone for a minute. vitest's own order needs the cache of an earlier
 * run, which a clean checkout (CI included) does not have. Durations come from
 * test/support/file-durations.json (seconds on the 2-core machine, refreshed with
 * `node test/support/record-durations.mjs` after a full run); a file not listed counts as the median.
 *
 * Projects are not mixed: the isolated files first, then process, integration and unit. The
 * process and integration files share worker processes (vitest.config.ts: `isolate: false`), and
 * vitest keeps a worker only while the next queued file belongs to the same project: interleaving
 * projects would restart it each time.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const known = Object.values(durations).sort((a, b) => a - b);
    const median = known[Math.floor(known.length / 2)] ?? 0;
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification) =>
      durations[path.relative(root, spec.moduleId).split(path.sep).join('/')] ?? median;
    const rank = (spec: TestSpecification) => {
      const i = PROJECT_ORDER.indexOf(spec.project.name);
      return i === -1 ? PROJECT_ORDER.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b) || seconds(b) - seconds(a));
  }
}

/** File (relative to the root, `/`-separated) → seconds. */
function readDurations(): Record<string, number> {
  return (JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as { seconds: Record<string, number> }).seconds;
}
