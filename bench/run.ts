// `npm run bench`: simulator, bare proxy and gateway on loopback, each driven by autocannon at
// 50 and 200 connections, JSON and streaming, instant and paced upstream. See bench/README.md.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchRun } from './lib/bench-run.js';
import { startGateway, type GatewayUnderTest } from './lib/gateway.js';
import { LIMITED_GROUP, limitedAccount } from './lib/limited.js';
import { runLoad } from './lib/load.js';
import { probeNodeArgs, readLoop } from './lib/loop-stats.js';
import { freePort, readUrl, type Child } from './lib/processes.js';
import { num, QuietGuard, startMeter } from './lib/quiet.js';
import {
  checks,
  NOISY,
  renderMarkdown,
  type Mode,
  type Phase,
  type Report,
  type TargetName,
  type Upstream,
} from './lib/report.js';
import type { PairedRound } from './lib/paired.js';
import { sequentialTtfb, type TtfbResult } from './lib/ttfb.js';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist-bench/bench
const root = path.resolve(here, '..', '..');

const DURATION_S = num('BENCH_DURATION_S', 8);
const WARMUP_S = num('BENCH_WARMUP_S', 1);
const TTFB_N = num('BENCH_TTFB_N', 300);
/** The instant scenarios measured again as this many back-to-back pairs (bare proxy, gateway) of PAIRED_S each. */
const PAIRED_ROUNDS = num('BENCH_PAIRED_ROUNDS', 3);
const PAIRED_S = num('BENCH_PAIRED_S', 5);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '50,200').split(',').map(Number);
/** `BENCH_SCENARIOS=instant-json,paced-stream`: measure only these (a quick look while working; not a full run). */
const SCENARIOS = process.env.BENCH_SCENARIOS ? new Set(process.env.BENCH_SCENARIOS.split(',')) : undefined;
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Disturbed phases measured again, at most this many times in a whole run. */
const RETRY_BUDGET = num('BENCH_RETRY_BUDGET', 6);
const PACED = { latencyMs: 20, chunkDelayMs: 2, outputTokens: 20 };
/** `BENCH_LIMITS=0`: the gateway's key has no limits (the default sets all three layers far from them, the full pipeline). */
const LIMITS_ON = process.env.BENCH_LIMITS !== '0';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
// Other work on the machine (a test run, a build) skews every number on 2 cores: each phase waits,
// bounded per phase and per run, until the machine is nearly idle.
const quietGuard = new QuietGuard({
  busy: 0.15,
  waitS: num('BENCH_QUIET_WAIT_S', 20),
  budgetS: num('BENCH_QUIET_BUDGET_S', 60),
  log,
});

function requestBody(upstream: Upstream, mode: Mode): string {
  return JSON.stringify({
    model: upstream === 'instant' ? 'bench-instant' : 'bench-paced',
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: upstream === 'instant' ? 16 : PACED.outputTokens,
    // The gateway always asks the upstream for usage (it bills by it); the client asks too, so every
    // target relays exactly the same upstream stream.
    ...(mode === 'stream' ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

async function redisServerPid(gw: GatewayUnderTest): Promise<number> {
  const info = await gw.redis.info('server');
  const match = /process_id:(\d+)/.exec(info);
  if (!match) throw new Error('Redis INFO has no process_id');
  return Number(match[1]);
}

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench', log);
  let succeeded = false;
  try {
    // Upstreams: the simulator's own CLI; the paced one gets its defaults through the control API.
    const simScript = path.join(root, 'dist-bench/tools/upstream-sim/main.js');
    const simInstant = run.spawn('sim-instant', simScript, ['--port', '0']);
    const simPaced = run.spawn('sim-paced', simScript, ['--port', '0']);
    const simUrls: Record<Upstream, string> = { instant: await readUrl(simInstant), paced: await readUrl(simPaced) };
    const put = await fetch(`${simUrls.paced}/_sim/defaults`, {
      method: 'PUT',
      body: JSON.stringify(PACED),
      headers: { 'content-type': 'application/json' },
    });
    if (!put.ok) throw new Error(`could not configure the paced simulator: ${put.status}`);
    const simChild: Record<Upstream, Child> = { instant: simInstant, paced: simPaced };

    // The API and the bare proxies carry an event-loop probe (lib/loop-probe.ts), read around each phase.
    const probeArgs = probeNodeArgs(path.join(here, 'lib'));
    const probePorts = { api: await freePort(), instant: await freePort(), paced: await freePort() };
    const probed = (port: number) => ({ nodeArgs: probeArgs, env: { ...process.env, BENCH_PROBE_PORT: String(port) } });

    // One bare proxy per upstream, so neither has to look inside the request to route it.
    const bareScript = path.join(here, 'bare-proxy.js');
    const bareInstant = run.spawn(
      'bare-instant',
      bareScript,
      ['--upstream', simUrls.instant],
      probed(probePorts.instant),
    );
    const barePaced = run.spawn('bare-paced', bareScript, ['--upstream', simUrls.paced], probed(probePorts.paced));
    const bareUrls: Record<Upstream, string> = { instant: await readUrl(bareInstant), paced: await readUrl(barePaced) };
    const bareChild: Record<Upstream, Child> = { instant: bareInstant, paced: barePaced };

    log('starting the gateway (migrate, user, key, API, worker)');
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { 'sim-instant': simUrls.instant, 'sim-paced': simUrls.paced },
      models: { 'bench-instant': 'sim-instant', 'bench-paced': 'sim-paced' },
      postgresAdminUrl: POSTGRES_ADMIN_URL,
      redisUrl: REDIS_URL,
      catalogExtra: { groups: [LIMITED_GROUP] },
      // BENCH_PROFILE_DIR=/some/dir writes a V8 CPU profile of the API process there when it stops.
      apiNodeArgs: [
        ...probeArgs,
        ...(process.env.BENCH_PROFILE_DIR
          ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_PROFILE_DIR)]
          : []),
      ],
      env: { BENCH_PROBE_PORT: String(probePorts.api) },
    });
    run.onEnd(() => gw.close());
    const redisPid = await redisServerPid(gw);
    // The full pipeline: a key with RPM, TPM and concurrency set at the key, account and group layers.
    let authorization = gw.authorization;
    if (LIMITS_ON) {
      const { email, keyFlags } = await limitedAccount(gw, 'run');
      authorization = `Bearer ${String((await gw.cli(['key:create', '--email', email, '--name', 'bench-limited', ...keyFlags])).key)}`;
    }
    const headers = { 'content-type': 'application/json', authorization };
    const route = '/v1/chat/completions';
    const urlOf = (target: TargetName, upstream: Upstream) =>
      `${target === 'sim' ? simUrls[upstream] : target === 'bare' ? bareUrls[upstream] : gw.url}${route}`;

    // Every known process of the run; CPU used by anything else on the machine is "foreign" load.
    const ownPids = async () => [
      process.pid,
      ...run.children.map((c) => c.pid),
      gw.api.pid,
      gw.worker.pid,
      redisPid,
      ...(await gw.postgresBackends()),
    ];

    // One longer warm-up per target first, so the first measured phase does not pay for JIT and pools.
    for (const target of ['sim', 'bare', 'gateway'] as const) {
      for (const upstream of ['instant', 'paced'] as const) {
        for (const mode of ['json', 'stream'] as const) {
          await runLoad({
            url: urlOf(target, upstream),
            connections: 50,
            durationS: 1,
            body: requestBody(upstream, mode),
            headers,
          });
        }
      }
    }
    await gw.usageDrained();

    // Sequential time to first byte, on an otherwise idle machine and after the warm-up: what one
    // call adds once the code is compiled (measured cold, it mostly shows the JIT at work).
    await quietGuard.wait();
    const targets = (['sim', 'bare', 'gateway'] as const).map((name) => ({ name, url: urlOf(name, 'instant') }));
    const ttfb = (await sequentialTtfb(targets, requestBody('instant', 'stream'), headers, TTFB_N)) as Record<
      TargetName,
      TtfbResult
    >;
    for (const target of ['sim', 'bare', 'gateway'] as const)
      log(`ttfb ${target}: p50 ${ttfb[target].p50.toFixed(3)} ms`);
    await gw.usageDrained();

    /** One phase: warm-up, a quiet machine, then the measured run with the CPU counters around it. */
    const measure = async (
      upstream: Upstream,
      mode: Mode,
      connections: number,
      target: TargetName,
      durationS = DURATION_S,
    ): Promise<Phase> => {
      const url = urlOf(target, upstream);
      const body = requestBody(upstream, mode);
      await runLoad({ url, connections, durationS: WARMUP_S, body, headers });
      if (target === 'gateway') await gw.usageDrained();
      const quiet = await quietGuard.wait();

      const roles: Record<string, number[]> =
        target === 'sim'
          ? { simulator: [simChild[upstream].pid] }
          : target === 'bare'
            ? { proxy: [bareChild[upstream].pid], redis: [redisPid] }
            : { api: [gw.api.pid], worker: [gw.worker.pid], redis: [redisPid], postgres: await gw.postgresBackends() };
      // The upstream's CPU is shown beside the target's, not counted in it.
      if (target !== 'sim') roles.upstream = [simChild[upstream].pid];
      const probe = target === 'gateway' ? probePorts.api : target === 'bare' ? probePorts[upstream] : undefined;
      if (probe) await readLoop(probe); // its figures start afresh
      const meter = startMeter(roles, await ownPids());
      const load = await runLoad({ url, connections, durationS, body, headers });
      const loop = probe ? await readLoop(probe) : undefined;
      // The worker drains this phase's usage records after the load stops: that is counted too.
      if (target === 'gateway' && !(await gw.usageDrained())) log('usage drain did not finish within 15 s');
      const measured = meter.stop(target === 'gateway' ? { postgres: await gw.postgresBackends() } : undefined);

      const cpuDetail: Record<string, number> = {};
      for (const [role, us] of Object.entries(measured.cpuUs)) cpuDetail[role] = us / Math.max(1, load.ok);
      // The bare proxy touches no Redis; its Redis figure only shows background noise from elsewhere.
      const counted = target === 'gateway' ? ['api', 'worker', 'redis'] : target === 'bare' ? ['proxy'] : ['simulator'];
      const cpuPerReq = counted.reduce((sum, role) => sum + (cpuDetail[role] ?? 0), 0);
      const phase: Phase = {
        upstream,
        mode,
        connections,
        target,
        load,
        cpuPerReq,
        cpuDetail,
        hostBusy: measured.hostBusy,
        foreignLoad: measured.foreign,
        foreignBefore: quiet,
        attempts: 1,
        ...(loop && { loop }),
      };
      log(
        `${upstream} ${mode} c=${connections} ${target}: ${Math.round(load.rps)} req/s p50 ${load.p50.toFixed(2)} p99 ${load.p99.toFixed(2)} ms ` +
          `(steady p99 ${load.steadyP99.toFixed(2)} ms after a ${load.rampS.toFixed(2)} s ramp${loop ? `, loop delay max ${loop.maxMs.toFixed(1)} ms, GC ${Math.round((100 * loop.gcMs) / loop.elapsedMs)}%` : ''}) ` +
          `errors ${load.errors}+${load.timeouts} non2xx ${load.non2xx} cpu ${Math.round(cpuPerReq)} µs/req ` +
          `foreign ${Math.round(phase.foreignLoad * 100)}%`,
      );
      return phase;
    };

    const phases: Phase[] = [];
    let retries = RETRY_BUDGET;
    for (const upstream of ['instant', 'paced'] as const) {
      for (const mode of ['json', 'stream'] as const) {
        if (SCENARIOS && !SCENARIOS.has(`${upstream}-${mode}`)) continue;
        for (const connections of CONNECTIONS) {
          for (const target of ['sim', 'bare', 'gateway'] as const) {
            let phase = await measure(upstream, mode, connections, target);
            // A phase another job disturbed is measured once more (while the run's budget lasts);
            // the less disturbed attempt is kept, whatever its numbers.
            let attempts = 1;
            while (phase.foreignLoad > NOISY && retries > 0 && attempts < 2) {
              retries--;
              attempts++;
              log(`  foreign load ${Math.round(phase.foreignLoad * 100)}%: measuring again (${retries} retries left)`);
              const again = await measure(upstream, mode, connections, target);
              if (again.foreignLoad < phase.foreignLoad) phase = again;
            }
            phases.push({ ...phase, attempts });
          }
        }
      }
    }

    // The ratios to the bare proxy again, in pairs measured back to back (lib/paired.ts).
    const paired: PairedRound[] = [];
    for (const mode of ['json', 'stream'] as const) {
      if (SCENARIOS && !SCENARIOS.has(`instant-${mode}`)) continue;
      for (const connections of CONNECTIONS) {
        for (let round = 1; round <= PAIRED_ROUNDS; round++) {
          // Alternating which goes first cancels a drift that runs the same way through a pair.
          const order = round % 2 === 1 ? (['bare', 'gateway'] as const) : (['gateway', 'bare'] as const);
          const got: Partial<Record<TargetName, Phase>> = {};
          for (const target of order) got[target] = await measure('instant', mode, connections, target, PAIRED_S);
          paired.push({ mode, connections, round, bare: got.bare!, gateway: got.gateway! });
        }
      }
    }

    const usage = await gw.usageSummary();
    const report: Report = {
      command: LIMITS_ON ? 'npm run bench' : 'BENCH_LIMITS=0 npm run bench',
      date: new Date().toISOString(),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
      settings: { durationS: DURATION_S, warmupS: WARMUP_S, ttfbN: TTFB_N, connections: CONNECTIONS },
      phases,
      ttfb,
      usage,
      paired,
    };
    const markdown = renderMarkdown(report);
    const resultsDir = process.env.BENCH_RESULTS_DIR
      ? path.resolve(process.env.BENCH_RESULTS_DIR)
      : path.join(root, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, 'latest.md'), markdown);
    await writeFile(path.join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(markdown);
    const failed = checks(report).filter((c) => !c.pass).length;
    log(failed ? `${failed} target(s) not met` : 'all targets met');
    if (failed && process.env.BENCH_STRICT === '1') process.exitCode = 1;
    succeeded = true;
  } finally {
    await run.end(succeeded);
  }
}

await main();
