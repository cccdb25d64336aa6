// `npm run bench:operations` (also the last part of `npm run bench`): what the operations features
// cost. One gateway (database, key, worker) and three API processes beside it, identical but for
// one setting each: the baseline (no tracing, ACCESS_LOG=false), the access log on, and traces at
// 100 % sampling exported over OTLP/HTTP to a sink. Chat completions JSON against the instant
// simulator; the configurations are measured in interleaved rounds and each keeps its median, so
// drift of a shared machine falls on all alike. Targets: traced ≥ 0.85× the baseline's
// throughput, access log ≥ 0.95×. See bench/README.md, "Operations".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchRun } from './lib/bench-run.js';
import { startGateway } from './lib/gateway.js';
import { runLoad } from './lib/load.js';
import { freePort, readUrl, type Child } from './lib/processes.js';
import { QuietGuard } from './lib/quiet.js';
import { publishResult } from './lib/results.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const DURATION_S = num('BENCH_DURATION_S', 5);
const ROUNDS = num('BENCH_ROUNDS', 3);
const WARMUP_S = num('BENCH_WARMUP_S', 2);
const CONNECTIONS = num('BENCH_OPERATIONS_CONNECTIONS', 50);
const log = (message: string) => process.stderr.write(`[bench:operations] ${message}\n`);

type Config = 'baseline' | 'access log' | 'traced (100 %)';
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
    };
    const apis = new Map<Config, { url: string; child: Child }>();
    for (const [config, extra] of Object.entries(settings) as [Config, Record<string, string>][]) {
      const port = await freePort();
      const child = run.spawn(`api-${config.split(' ')[0]}`, path.join(root, 'dist/bin/api.js'), [], {
        env: { ...gw.env, PORT: String(port), METRICS_PORT: '0', LOG_LEVEL: 'info', ...extra },
        cwd: root,
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
    for (let round = 0; round < ROUNDS; round++) {
      for (const [config, { url }] of apis) {
        await quiet.wait();
        const result = await load(url, DURATION_S);
        if (result.errors + result.timeouts + result.non2xx > 0)
          log(`${config}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
        rps.get(config)!.push(result.rps);
        log(`round ${round + 1} ${config}: ${Math.round(result.rps)} req/s p50 ${result.p50.toFixed(2)} ms`);
        await gw.usageDrained();
      }
    }

    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const base = median(rps.get('baseline')!);
    const lines = [
      '# Operations: the cost of the access log and of traces',
      '',
      `\`npm run bench:operations\` — ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}.`,
      `Chat completions JSON, instant upstream, ${CONNECTIONS} connections, ${DURATION_S} s × ${ROUNDS} interleaved rounds (median).`,
      `Spans exported: ${Math.round(exported / 1024)} KiB of OTLP protobuf.`,
      '',
      '| configuration | req/s (median) | rounds | × baseline | target | |',
      '|---|---|---|---|---|---|',
    ];
    let failed = 0;
    for (const [config, values] of rps) {
      const m = median(values);
      const ratio = m / base;
      const target = TARGETS[config];
      const pass = target === undefined || ratio >= target;
      if (!pass) failed++;
      lines.push(
        `| ${config} | ${Math.round(m)} | ${values.map((v) => Math.round(v)).join(', ')} | ${ratio.toFixed(3)} | ${target === undefined ? '' : `≥ ${target}`} | ${target === undefined ? '' : pass ? 'met' : '**not met**'} |`,
      );
    }
    lines.push('');
    await publishResult(root, 'operations-latest.md', lines.join('\n'));
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
