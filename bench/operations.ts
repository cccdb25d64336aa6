// `npm run bench:operations` (also the last part of `npm run bench`): what the operations features
// cost. One gateway (database, key, worker) and three API processes beside it, identical but for
// one setting each: the baseline (no tracing, ACCESS_LOG=false), the access log on, and traces at
// 100 % sampling exported over OTLP/HTTP to a sink. Chat completions JSON against the instant
// simulator; the configurations are measured in interleaved rounds and each keeps its median, so
// drift of a shared machine falls on all alike. Targets: traced ≥ 0.85× the baseline's
// throughput, access log ≥ 0.95×. See bench/README.md, "Operations".
import { createServer } from 'node:http';
import autocannon from 'autocannon';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchRun } from './lib/bench-run.js';
import { startGateway } from './lib/gateway.js';
import { runLoad } from './lib/load.js';
import { cpuMicros, freePort, readUrl, snapshot, type Child } from './lib/processes.js';
import { QuietGuard } from './lib/quiet.js';
import { newestProfile, summarizeProfile } from './lib/profile.js';
import { publishResult } from './lib/results.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const DURATION_S = num('BENCH_DURATION_S', 5);
const ROUNDS = num('BENCH_ROUNDS', 3);
const WARMUP_S = num('BENCH_WARMUP_S', 2);
const CONNECTIONS = num('BENCH_OPERATIONS_CONNECTIONS', 50);
/** Calls per second of the fixed-rate phase that measures CPU per call (well below what a busy machine serves). */
const RATE = num('BENCH_OPERATIONS_RATE', 300);
/** `BENCH_PROFILE_DIR=/some/dir`: a V8 CPU profile of the traced API, its top functions logged at the end. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ? path.resolve(process.env.BENCH_PROFILE_DIR) : undefined;
const log = (message: string) => process.stderr.write(`[bench:operations] ${message}\n`);

type Config = 'baseline' | 'access log' | 'traced (100 %)' | 'tracing on, none sampled';
const TARGETS: Partial<Record<Config, number>> = { 'access log': 0.95, 'traced (100 %)': 0.85 };

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-ops', log);
  let succeeded = false;
  try {
    const sim = run.spawn('sim', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    // The collector: takes every export and throws it away (a real one runs on another machine).
    let exported = 0;
    const sink = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => (exported += chunk.length));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    run.onEnd(() => new Promise((resolve) => sink.close(resolve)));
    const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

    log('starting the gateway (migrate, user, key, API, worker)');
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { 'sim-instant': simUrl },
      models: { 'bench-instant': 'sim-instant' },
      postgresAdminUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    run.onEnd(() => gw.close());

    const settings: Record<Config, Record<string, string>> = {
      baseline: { ACCESS_LOG: 'false' },
      'access log': { ACCESS_LOG: 'true' },
      'traced (100 %)': {
        ACCESS_LOG: 'false',
        OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
        OTEL_TRACES_SAMPLER: 'always_on',
      },
      // Tracing installed but no span recorded: the context carried between callbacks, alone.
      'tracing on, none sampled': {
        ACCESS_LOG: 'false',
        OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
        OTEL_TRACES_SAMPLER: 'always_off',
      },
    };
    const apis = new Map<Config, { url: string; child: Child }>();
    for (const [config, extra] of Object.entries(settings) as [Config, Record<string, string>][]) {
      const port = await freePort();
      const child = run.spawn(`api-${config.replace(/[^a-z]+/g, '-')}`, path.join(root, 'dist/bin/api.js'), [], {
        env: { ...gw.env, PORT: String(port), METRICS_PORT: '0', LOG_LEVEL: 'info', ...extra },
        cwd: root,
        ...(PROFILE_DIR && config === 'traced (100 %)' && { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] }),
      });
      // Its log lines (the access log among them) are read and dropped, as a log shipper would take them.
      child.proc.stdout?.resume();
      apis.set(config, { url: `http://127.0.0.1:${port}`, child });
    }
    for (const { url } of apis.values()) await ready(url);

    const body = JSON.stringify({
      model: 'bench-instant',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 16,
    });
    const headers = { 'content-type': 'application/json', authorization: gw.authorization };
    const load = (url: string, durationS: number) =>
      runLoad({ url: `${url}/v1/chat/completions`, connections: CONNECTIONS, durationS, body, headers });
    for (const { url } of apis.values()) await load(url, WARMUP_S);
    await gw.usageDrained();

    const quiet = new QuietGuard({
      busy: 0.15,
      waitS: num('BENCH_QUIET_WAIT_S', 20),
      budgetS: num('BENCH_QUIET_BUDGET_S', 60),
      log,
    });
    const rps = new Map<Config, number[]>([...apis.keys()].map((c) => [c, []]));
    // The API process's CPU per call: throughput on two shared cores swings with other work, the CPU
    // a call costs much less (the OTLP sink's own CPU is not the gateway's and is left out).
    const cpu = new Map<Config, number[]>([...apis.keys()].map((c) => [c, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [config, { url, child }] of apis) {
        await quiet.wait();
        const result = await load(url, DURATION_S);
        // CPU per call at a fixed rate: the same work per second in every configuration, so what a
        // call costs is not skewed by how hard a closed loop could push it on a contended machine.
        const before = snapshot([child.pid]);
        const fixed = await autocannon({
          url: `${url}/v1/chat/completions`,
          method: 'POST',
          connections: 10,
          overallRate: RATE,
          duration: DURATION_S,
          body,
          headers,
        });
        cpu.get(config)!.push(cpuMicros(before, snapshot([child.pid])) / Math.max(1, fixed['2xx']));
        rps.get(config)!.push(result.rps);
        log(
          `round ${round + 1} ${config}: ${Math.round(result.rps)} req/s p50 ${result.p50.toFixed(2)} ms, API ${Math.round(cpu.get(config)!.at(-1)!)} µs CPU/call`,
        );
        await gw.usageDrained();
      }
    }

    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const base = median(rps.get('baseline')!);
    const baseCpu = median(cpu.get('baseline')!);
    const lines = [
      '# Operations: the cost of the access log and of traces',
      '',
      `\`npm run bench:operations\` — ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}.`,
      `Chat completions JSON, instant upstream, ${CONNECTIONS} connections, ${DURATION_S} s × ${ROUNDS} interleaved rounds (median).`,
      `Spans exported: ${Math.round(exported / 1024)} KiB of OTLP protobuf.`,
      '',
      `The CPU column is the API process's CPU per call (median) at a fixed ${RATE} calls/s; its ratio to the baseline's is the throughput a CPU-bound API keeps. Both figures move with other work on a shared machine: compare configurations within one run.`,
      '',
      '| configuration | req/s (median) | rounds | × baseline | API µs CPU/call | throughput kept by CPU | target | |',
      '|---|---|---|---|---|---|---|---|',
    ];
    let failed = 0;
    for (const [config, values] of rps) {
      const m = median(values);
      const ratio = m / base;
      const callCpu = median(cpu.get(config)!);
      const kept = baseCpu / callCpu;
      const target = TARGETS[config];
      // Met when both measures say so: the throughput of this run and the CPU a call costs.
      const pass = target === undefined || (ratio >= target && kept >= target);
      if (!pass) failed++;
      lines.push(
        `| ${config} | ${Math.round(m)} | ${values.map((v) => Math.round(v)).join(', ')} | ${ratio.toFixed(3)} | ${Math.round(callCpu)} | ${kept.toFixed(3)} | ${target === undefined ? '' : `≥ ${target}`} | ${target === undefined ? '' : pass ? 'met' : '**not met**'} |`,
      );
    }
    lines.push('');
    await publishResult(root, 'operations-latest.md', lines.join('\n'));
    if (PROFILE_DIR) {
      await apis.get('traced (100 %)')!.child.stop(30_000);
      const file = await newestProfile(PROFILE_DIR);
      const summary = file && (await summarizeProfile(file, root));
      if (summary)
        for (const [fn, us] of summary.self.slice(0, 40)) log(`${((100 * us) / summary.busyUs).toFixed(1)}% ${fn}`);
    }
    log(failed ? `${failed} target(s) not met` : 'all targets met');
    if (failed && process.env.BENCH_STRICT === '1') process.exitCode = 1;
    succeeded = true;
  } finally {
    await run.end(succeeded);
  }
}

async function ready(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the API at ${url} did not become ready`);
}

await main();
