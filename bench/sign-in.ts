// `npm run bench:sign-in`: console password sign-in with argon2id at the configured cost, and its
// effect on the data plane. (a) sequential sign-ins: latency; (b) sign-ins at load: throughput per
// API process; (c) chat at load alone and beside a steady 10 sign-ins/s, paired in rounds: the
// chat throughput lost. See bench/README.md, "Console sign-in".
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchRun } from './lib/bench-run.js';
import { publishResult } from './lib/results.js';
import { cannon, summarize } from './lib/cannon.js';
import { startGateway } from './lib/gateway.js';
import { readUrl } from './lib/processes.js';
import { ARGON2_OPTIONS } from '../shared/accounts/passwords.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const N = num('BENCH_SIGNIN_N', 60);
const DURATION_S = num('BENCH_DURATION_S', 6);
const ROUNDS = num('BENCH_ROUNDS', 3);
const CHAT_CONNECTIONS = num('BENCH_CONNECTIONS', 20);
const BESIDE_RATE = 10;
const log = (message: string) => process.stderr.write(`[bench:sign-in] ${message}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-sign-in', log);
  let ok = false;
  try {
    const sim = run.spawn('sim', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { 'sim-openai': simUrl },
      models: { 'bench-chat': 'sim-openai' },
      env: { SIGNIN_IP_LIMIT: '10000000' },
      workerEnv: { WORKER_QUEUES: 'usage' },
      postgresAdminUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    run.onEnd(() => gw.close());
    const loginUrl = `${gw.url}/api/v1/auth/login`;
    const loginBody = JSON.stringify({ identifier: gw.email, password: 'bench-password-123' });
    const json = { 'content-type': 'application/json' };
    const signInOnce = async () => {
      const started = performance.now();
      const res = await fetch(loginUrl, { method: 'POST', headers: json, body: loginBody });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
      return performance.now() - started;
    };

    // (a) one at a time.
    for (let i = 0; i < 5; i++) await signInOnce();
    const sequential: number[] = [];
    for (let i = 0; i < N; i++) sequential.push(await signInOnce());
    const latency = summarize(sequential);
    log(`sequential p50 ${latency.p50.toFixed(1)} ms`);

    // (b) as many as one API process serves.
    const load = await cannon({ url: loginUrl, connections: 4, durationS: DURATION_S, headers: json, body: loginBody });
    log(`sign-ins at load: ${load.rps.toFixed(1)}/s`);

    // (c) chat alone vs beside 10 sign-ins/s, paired per round.
    const chat = () =>
      cannon({
        url: `${gw.url}/v1/chat/completions`,
        connections: CHAT_CONNECTIONS,
        durationS: DURATION_S,
        headers: { ...json, authorization: gw.authorization },
        body: JSON.stringify({ model: 'bench-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 }),
      });
    const besideSignIns = async () => {
      let signIns = 0;
      const pending: Promise<unknown>[] = [];
      const timer = setInterval(() => pending.push(signInOnce().then(() => signIns++)), 1000 / BESIDE_RATE);
      const result = await chat();
      clearInterval(timer);
      await Promise.all(pending);
      return { rps: result.rps, signIns };
    };
    // A first run warms the JIT and the pools, so that no round's "alone" half runs cold.
    await chat();
    const rounds: { alone: number; beside: number; signIns: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // The order alternates, so the machine's drift within a round favours neither half.
      await gw.usageDrained();
      const first = round % 2 === 0 ? { rps: (await chat()).rps, signIns: -1 } : await besideSignIns();
      await gw.usageDrained();
      const second = round % 2 === 0 ? await besideSignIns() : { rps: (await chat()).rps, signIns: -1 };
      const [alone, beside] = round % 2 === 0 ? [first, second] : [second, first];
      rounds.push({ alone: alone.rps, beside: beside.rps, signIns: beside.signIns });
      log(
        `round ${round + 1}: chat alone ${alone.rps.toFixed(0)}/s, beside sign-ins ${beside.rps.toFixed(0)}/s (${beside.signIns} sign-ins)`,
      );
    }
    const losses = rounds.map((r) => 1 - r.beside / r.alone);
    const loss = median(losses);

    const lines = [
      `# Console sign-in benchmark (${new Date().toISOString()})`,
      '',
      `Command: \`npm run bench:sign-in\`. ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}. argon2id: memory ${ARGON2_OPTIONS.memoryCost} KiB, ${ARGON2_OPTIONS.timeCost} passes, parallelism ${ARGON2_OPTIONS.parallelism}. One API process.`,
      '',
      '| measure | value | target | met |',
      '|---|---|---|---|',
      `| sign-in latency, ${N} sequential, p50 / p99 ms | ${latency.p50.toFixed(1)} / ${latency.p99.toFixed(1)} | p50 ≤ 150 ms | ${latency.p50 <= 150 ? 'yes' : '**MISSED**'} |`,
      `| sign-ins per second, 4 connections, ${DURATION_S} s | ${load.rps.toFixed(1)} (${load.non2xx + load.errors} failed) | ≥ 15 | ${load.rps >= 15 ? 'yes' : '**MISSED**'} |`,
      `| chat throughput lost beside ${BESIDE_RATE} sign-ins/s (median of ${ROUNDS} paired rounds; ${losses.map((l) => `${(l * 100).toFixed(1)} %`).join(', ')}) | ${(loss * 100).toFixed(1)} % | ≤ 10 % | ${loss <= 0.1 ? 'yes' : '**MISSED**'} |`,
      '',
      '| round | chat alone, req/s | chat beside sign-ins, req/s | sign-ins done |',
      '|---|---|---|---|',
      ...rounds.map((r, i) => `| ${i + 1} | ${r.alone.toFixed(0)} | ${r.beside.toFixed(0)} | ${r.signIns} |`),
      '',
    ];
    await publishResult(root, 'sign-in-latest.md', lines.join('\n'));
    ok = true;
  } finally {
    await run.end(ok);
  }
}

await main();
