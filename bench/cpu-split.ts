// `npm run bench:cpu`: where each call's CPU goes, at a fixed request rate well below saturation.
// The closed-loop runs of `npm run bench` measure CPU per call on a machine the load keeps busy,
// where scheduling and batching move the figures with the load. Here every target gets the same
// open-loop rate (autocannon's overallRate), the targets alternate round by round, and the CPU of
// each process is split into user and system time, and the API's and the bare proxy's into the
// JavaScript thread and the helper threads (garbage collection, compilation). See bench/README.md.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { BenchRun } from './lib/bench-run.js';
import { startGateway } from './lib/gateway.js';
import { limitedAccount, LIMITED_GROUP } from './lib/limited.js';
import { commit, f0, f1, machine, pct, table } from './lib/md.js';
import { CLOCK_TICKS_PER_SECOND, readUrl, threadSplit, type CpuSplit } from './lib/processes.js';
import { NOISY, num, QuietGuard, startMeter } from './lib/quiet.js';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist-bench/bench
const root = path.resolve(here, '..', '..');

const RATE = num('BENCH_RATE', 1500);
const CONNECTIONS = num('BENCH_CONNECTIONS', 16);
const DURATION_S = num('BENCH_DURATION_S', 4);
const WARMUP_S = num('BENCH_WARMUP_S', 3);
const ROUNDS = num('BENCH_ROUNDS', 6);
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The issue-2 targets for the gateway's CPU per call (API + worker + Redis). */
const TARGET_US = { json: 110, stream: 180 };

type Mode = 'json' | 'stream';
type Target = 'bare' | 'none' | 'layers';
const TARGETS: Target[] = ['bare', 'none', 'layers'];
const TARGET_LABEL: Record<Target, string> = {
  bare: 'bare proxy',
  none: 'gateway, no limits',
  layers: 'gateway, all layers set',
};

/** CPU ticks per part of a target, summed over its phases. */
type Parts = Record<string, CpuSplit>;

interface Tally {
  calls: number;
  failed: number;
  parts: Parts;
  foreign: number[];
}

const log = (message: string) => process.stderr.write(`[bench:cpu] ${message}\n`);

function addSplit(into: Parts, name: string, before: CpuSplit | undefined, after: CpuSplit | undefined): void {
  if (!before || !after) throw new Error(`${name}: its process is gone`);
  const part = (into[name] ??= { user: 0, system: 0 });
  part.user += after.user - before.user;
  part.system += after.system - before.system;
}

/** Sends RATE calls per second over CONNECTIONS for `durationS` seconds, whatever the answers' latency. */
function fixedRate(
  url: string,
  body: string,
  authorization: string,
  durationS: number,
): Promise<{ ok: number; failed: number }> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', authorization },
        connections: CONNECTIONS,
        overallRate: RATE,
        duration: durationS,
        timeout: 10,
      },
      (err, result) => {
        if (err) return reject(err);
        resolve({ ok: result['2xx'], failed: result.non2xx + result.errors + result.timeouts });
      },
    );
  });
}

function requestBody(mode: Mode): string {
  return JSON.stringify({
    model: 'bench-instant',
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: 16,
    ...(mode === 'stream' ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-cpu', log);
  let succeeded = false;
  try {
    const sim = run.spawn('sim-instant', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    const bare = run.spawn('bare-instant', path.join(here, 'bare-proxy.js'), ['--upstream', simUrl]);
    const bareUrl = await readUrl(bare);

    log('starting the gateway (migrate, users, keys, API, worker)');
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { 'sim-instant': simUrl },
      models: { 'bench-instant': 'sim-instant' },
      postgresAdminUrl: POSTGRES_ADMIN_URL,
      redisUrl: REDIS_URL,
      catalogExtra: {
        groups: [LIMITED_GROUP],
      },
      // The worker only drains usage records: no BullMQ task workers polling Redis in the counts.
      workerEnv: { WORKER_QUEUES: 'usage' },
    });
    run.onEnd(() => gw.close());
    const limited = await limitedAccount(gw, 'cpu');
    const layersKey = await gw.cli([
      'key:create',
      '--email',
      limited.email,
      '--name',
      'bench-cpu-layers',
      ...limited.keyFlags,
    ]);
    const redisPid = Number(/process_id:(\d+)/.exec(await gw.redis.info('server'))?.[1]);
    const route = '/v1/chat/completions';
    const endpoint: Record<Target, { url: string; authorization: string }> = {
      bare: { url: `${bareUrl}${route}`, authorization: gw.authorization },
      none: { url: `${gw.url}${route}`, authorization: gw.authorization },
      layers: { url: `${gw.url}${route}`, authorization: `Bearer ${String(layersKey.key)}` },
    };
    const ownPids = async () => [
      process.pid,
      ...run.children.map((c) => c.pid),
      gw.api.pid,
      gw.worker.pid,
      redisPid,
      ...(await gw.postgresBackends()),
    ];
    const quiet = new QuietGuard({
      busy: 0.15,
      waitS: num('BENCH_QUIET_WAIT_S', 20),
      budgetS: num('BENCH_QUIET_BUDGET_S', 60),
      log,
    });

    /** Reads the CPU of the processes a target's calls run through. */
    const read = (target: Target): Record<string, CpuSplit | undefined> => {
      const upstream = threadSplit(sim.pid);
      if (target === 'bare') {
        const proxy = threadSplit(bare.pid);
        return { 'proxy: JS thread': proxy?.main, 'proxy: other threads': proxy?.others, upstream: sumSplit(upstream) };
      }
      const api = threadSplit(gw.api.pid);
      return {
        'API: JS thread': api?.main,
        'API: other threads': api?.others,
        worker: sumSplit(threadSplit(gw.worker.pid)),
        Redis: sumSplit(threadSplit(redisPid)),
        upstream: sumSplit(upstream),
      };
    };

    const tallies = {} as Record<Mode, Record<Target, Tally>>;
    for (const mode of ['json', 'stream'] as const) {
      const body = requestBody(mode);
      tallies[mode] = {} as Record<Target, Tally>;
      for (const target of TARGETS) {
        tallies[mode][target] = { calls: 0, failed: 0, parts: {}, foreign: [] };
        await fixedRate(endpoint[target].url, body, endpoint[target].authorization, WARMUP_S);
      }
      await gw.usageDrained(30_000);
      for (let round = 0; round < ROUNDS; round++) {
        // The first target of a round rotates, so drift over the run falls on every target alike.
        const order = TARGETS.map((_, i) => TARGETS[(i + round) % TARGETS.length]!);
        for (const target of order) {
          await quiet.wait();
          const meter = startMeter({}, await ownPids());
          const before = read(target);
          const result = await fixedRate(endpoint[target].url, body, endpoint[target].authorization, DURATION_S);
          // The worker's share of a call is paid when its record is drained: wait for it.
          if (target !== 'bare' && !(await gw.usageDrained(30_000)))
            throw new Error('usage records were not drained within 30 s');
          const after = read(target);
          const measured = meter.stop();
          const tally = tallies[mode][target];
          tally.calls += result.ok;
          tally.failed += result.failed;
          tally.foreign.push(measured.foreign);
          for (const name of Object.keys(after)) addSplit(tally.parts, name, before[name], after[name]);
          log(
            `${mode} ${target} round ${round + 1}: ${result.ok} calls, ${result.failed} failed, foreign ${pct(measured.foreign)}`,
          );
        }
      }
    }

    const markdown = render(tallies);
    process.stdout.write(`\n${markdown}\n`);
    const resultsDir = process.env.BENCH_RESULTS_DIR
      ? path.resolve(process.env.BENCH_RESULTS_DIR)
      : path.join(root, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, 'cpu-split.md'), `${markdown}\n`);
    log(`wrote ${path.join(resultsDir, 'cpu-split.md')}`);
    succeeded = true;
  } finally {
    await run.end(succeeded);
  }
}

function sumSplit(split: { main: CpuSplit; others: CpuSplit } | undefined): CpuSplit | undefined {
  return split && { user: split.main.user + split.others.user, system: split.main.system + split.others.system };
}

const perCall = (ticks: number, calls: number) => (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND / calls;

function render(tallies: Record<Mode, Record<Target, Tally>>): string {
  const lines = [
    '### Results: CPU per call at a fixed rate (`npm run bench:cpu`)',
    '',
    'Command: `npm run bench:cpu`  ',
    `Date: ${new Date().toISOString()}, commit ${commit(root)}  `,
    `Machine: ${machine()}  `,
    `Settings: instant upstream, ${f0(RATE)} calls/s over ${CONNECTIONS} connections (open loop), ${ROUNDS} rounds × ${DURATION_S} s per target, targets alternating (the first one rotating)`,
    '',
  ];
  for (const mode of ['json', 'stream'] as const) {
    const names = [...new Set(TARGETS.flatMap((t) => Object.keys(tallies[mode][t].parts)))];
    const rows: string[][] = [];
    for (const name of names) {
      const row = [name];
      for (const target of TARGETS) {
        const { parts, calls } = tallies[mode][target];
        const part = parts[name];
        row.push(part ? `${f1(perCall(part.user, calls))} + ${f1(perCall(part.system, calls))}` : '');
      }
      rows.push(row);
    }
    const counted = (target: Target) => {
      const { parts, calls } = tallies[mode][target];
      let ticks = 0;
      for (const [name, part] of Object.entries(parts)) if (name !== 'upstream') ticks += part.user + part.system;
      return perCall(ticks, calls);
    };
    rows.push(['**counted (all but the upstream)**', ...TARGETS.map((t) => `**${f1(counted(t))}**`)]);
    rows.push([
      'calls measured / failed',
      ...TARGETS.map((t) => `${f0(tallies[mode][t].calls)} / ${tallies[mode][t].failed}`),
    ]);
    rows.push([
      'foreign load per round',
      ...TARGETS.map((t) => tallies[mode][t].foreign.map((v) => `${pct(v)}${v > NOISY ? ' ⚠' : ''}`).join(', ')),
    ]);
    lines.push(
      `#### ${mode === 'json' ? 'JSON' : 'Streamed'} chat: CPU µs per call, user + system`,
      '',
      table(['process', ...TARGETS.map((t) => TARGET_LABEL[t])], rows, ['l', 'r', 'r', 'r']),
      '',
      `The floor for the gateway (the bare proxy's own CPU + what Redis and the worker cost a call without limits): ` +
        `${f1(counted('bare'))} + ${f1(partOf(tallies[mode].none, 'Redis'))} + ${f1(partOf(tallies[mode].none, 'worker'))} = ` +
        `${f1(counted('bare') + partOf(tallies[mode].none, 'Redis') + partOf(tallies[mode].none, 'worker'))} µs against the target of ${TARGET_US[mode]} µs.`,
      '',
    );
  }
  return lines.join('\n');
}

function partOf(tally: Tally, name: string): number {
  const part = tally.parts[name];
  return part ? perCall(part.user + part.system, tally.calls) : Number.NaN;
}

main().catch((err: unknown) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
