// Loaded into a process under test with `node --import <this file>` (the gateway's API, the bare
// proxy): measures its event-loop delay (perf_hooks.monitorEventLoopDelay) and its GC time, and
// serves them as JSON on 127.0.0.1:$BENCH_PROBE_PORT — every read answers the figures since the
// previous read and starts afresh, so a phase reads once before and once after. Nothing of it is in
// the product: the bench adds it on the command line.
import { createServer } from 'node:http';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { LoopStats } from './loop-stats.js';

const port = Number(process.env.BENCH_PROBE_PORT);
if (port > 0) {
  // A 5 ms timer: a stall shows as that timer firing late, to within a few ms.
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  }).observe({ entryTypes: ['gc'] });
  let since = performance.now();
  const ms = (ns: number) => ns / 1e6;
  const server = createServer((_req, res) => {
    const now = performance.now();
    const stats: LoopStats = {
      elapsedMs: now - since,
      p50Ms: ms(delay.percentile(50)),
      p99Ms: ms(delay.percentile(99)),
      maxMs: ms(delay.max),
      meanMs: ms(delay.mean),
      gcMs,
    };
    delay.reset();
    gcMs = 0;
    since = now;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
  });
  server.on('error', (err) => process.stderr.write(`loop probe: ${err.message}\n`));
  server.listen(port, '127.0.0.1').unref();
}
