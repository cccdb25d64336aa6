// Preload for a benchmark's worker (`BENCH_WORKER_NODE_OPTIONS="--require <abs path>/bench/lib/heap-sampler.cjs"`,
// `BENCH_WORKER_ENV=HEAP_SAMPLER_DIR=<dir>`): V8's sampling heap profiler from the process's start,
// leaving out what a scavenge collected. On SIGUSR2 the profile so far — what was promoted to old
// space (collected by a major GC since, or not yet) and what is live — goes to
// <dir>/<pid>-<n>.heapprofile (open it in Chrome DevTools' Memory tab). See bench/README.md, Batches.
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');
const session = new inspector.Session();
session.connect();
const dir = process.env.HEAP_SAMPLER_DIR || '/tmp';
let n = 0;
session.post('HeapProfiler.enable', () =>
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  }),
);
process.on('SIGUSR2', () => {
  session.post('HeapProfiler.getSamplingProfile', (err, res) => {
    const file = path.join(dir, `${process.pid}-${++n}.heapprofile`);
    fs.writeFileSync(file, JSON.stringify(err ? { error: String(err) } : res.profile));
    process.stderr.write(`heap profile written: ${file}\n`);
  });
});
