// `npm run bench:limits` (issue 3): what the rate-limit layers cost per call. The same gateway
// serves a key with no limit at any layer and keys with every layer set (key, account, group: RPM,
// TPM and concurrency; one also with quota caps), all far above what the run sends. Paced upstream,
// JSON chat, at 50 connections and one request at a time; Redis commands per call counted from
// INFO commandstats and attributed with a MONITOR trace. See bench/README.md.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { cannon, summarize, type CannonResult } from './lib/cannon.js';
import { BenchRun } from './lib/bench-run.js';
import { startGateway } from './lib/gateway.js';
import { limitedAccount, LIMITED_GROUP, LIMITS } from './lib/limited.js';
import { commit, f0, f1, f2, f3, machine, pct, signed, table, verdict } from './lib/md.js';
import { newestProfile, summarizeProfile } from './lib/profile.js';
import { readUrl } from './lib/processes.js';
import { NOISY, num, QuietGuard, startMeter, type MeterResult } from './lib/quiet.js';
import { commandStats, foreignActiveClients, monitorTrace, statsDelta, type TracedCommand } from './lib/redis-trace.js';
import { sequentialInterleaved } from './lib/sequential.js';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist-bench/bench
const root = path.resolve(here, '..', '..');

const DURATION_S = num('BENCH_DURATION_S', 5);
const WARMUP_S = num('BENCH_WARMUP_S', 2);
const ROUNDS = num('BENCH_ROUNDS', 6);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50);
const SEQ_N = num('BENCH_SEQ_N', 300);
const SEQ_INSTANT_N = num('BENCH_SEQ_INSTANT_N', 1000);
const MIXED_ROUNDS = num('BENCH_MIXED_ROUNDS', 4);
const COUNT_N = num('BENCH_COUNT_N', 3000);
const TRACE_N = num('BENCH_TRACE_N', 50);
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RETRY_BUDGET = num('BENCH_RETRY_BUDGET', 4);
/** The spine benchmark's paced upstream: 20 ms to the headers (JSON: the whole answer then). */
const PACED = { latencyMs: 20, chunkDelayMs: 2, outputTokens: 20 };
const TARGET_DELTA_MS = 0.3;

type KeyName = 'none' | 'layers' | 'caps';
/** `none2`: a second account without limits, in the mixed and sequential runs: the A/A check. */
/** `conc` / `rpm`: a key with only a concurrency limit (no X-RateLimit headers) / only an RPM limit. */
type MixKey = KeyName | 'none2' | 'conc' | 'rpm';
const MIX_KEYS: MixKey[] = ['none', 'none2', 'conc', 'rpm', 'layers', 'caps'];
const SEQ_KEYS: MixKey[] = ['none', 'none2', 'layers', 'caps'];
/** One key per phase: the three keys, and the second no-limits account for the A/A spread of this method. */
const PHASE_KEYS: MixKey[] = ['none', 'none2', 'layers', 'caps'];
const KEY_LABEL: Record<MixKey, string> = {
  none: 'no limits (spine)',
  none2: 'no limits, 2nd account (A/A)',
  conc: 'key concurrency only',
  rpm: 'key RPM only',
  layers: 'all layers set',
  caps: 'all layers + quota caps',
};

const log = (message: string) => process.stderr.write(`[bench:limits] ${message}\n`);

interface MixedRound {
  byKey: Record<MixKey, CannonResult>;
  connections: Record<MixKey, number>;
  foreign: number;
}

interface LoadPhase {
  key: MixKey | 'sim';
  round: number;
  load: CannonResult;
  meter: MeterResult;
  attempts: number;
}

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-limits', log);
  let succeeded = false;
  let markdown = '';
  let apiCalls = 0;
  const profileDir = process.env.BENCH_PROFILE_DIR ? path.resolve(process.env.BENCH_PROFILE_DIR) : undefined;
  try {
    const sim = run.spawn('sim-paced', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    // A second simulator answering at once: sequential calls through it show the gateway's own time
    // without the paced simulator's timer jitter (±0.3 ms on a p50 here).
    const simInstant = run.spawn('sim-instant', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), [
      '--port',
      '0',
    ]);
    const simInstantUrl = await readUrl(simInstant);
    const put = await fetch(`${simUrl}/_sim/defaults`, {
      method: 'PUT',
      body: JSON.stringify(PACED),
      headers: { 'content-type': 'application/json' },
    });
    if (!put.ok) throw new Error(`could not configure the simulator: ${put.status}`);

    log('starting the gateway (migrate, users, keys, API, worker)');
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { 'sim-paced': simUrl, 'sim-instant': simInstantUrl },
      models: { 'bench-paced': 'sim-paced', 'bench-instant': 'sim-instant' },
      postgresAdminUrl: POSTGRES_ADMIN_URL,
      redisUrl: REDIS_URL,
      catalogExtra: {
        groups: [LIMITED_GROUP],
      },
      // The worker only drains usage records: no BullMQ task workers polling Redis in the counts.
      workerEnv: { WORKER_QUEUES: 'usage' },
      apiNodeArgs: profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : undefined,
    });
    run.onEnd(() => gw.close());
    // Another job on this shared machine may stop our processes (a broad pkill): say so, stop early.
    for (const child of [gw.api, gw.worker]) {
      child.proc.once('exit', (code, signal) => {
        if (!run.stopping) log(`${child.name} (pid ${child.pid}) exited unexpectedly: code ${code}, signal ${signal}`);
      });
    }
    const alive = () => {
      for (const child of [gw.api, gw.worker]) {
        if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
          throw new Error(
            `${child.name} exited (code ${child.proc.exitCode}, signal ${child.proc.signalCode}); results would be void`,
          );
        }
      }
    };

    // The base user and key have no limits anywhere (group `default` has none). A second account
    // gets operator limits, and its keys belong to the `limited` group and carry key limits.
    const { email: limitedEmail, keyFlags: keyLimitFlags } = await limitedAccount(gw, 'limited');
    const layersKey = await gw.cli(['key:create', '--email', limitedEmail, '--name', 'bench-layers', ...keyLimitFlags]);
    const capsKey = await gw.cli([
      'key:create',
      '--email',
      limitedEmail,
      '--name',
      'bench-caps',
      ...keyLimitFlags,
      '--total-micro-usd',
      String(LIMITS.caps.total),
      '--daily-micro-usd',
      String(LIMITS.caps.daily),
      '--monthly-micro-usd',
      String(LIMITS.caps.monthly),
    ]);
    // Three more accounts, one key each: no limits (A/A), key concurrency only, key RPM only.
    const soloKey = async (name: string, flags: string[]) => {
      const email = `bench-${name}-${Date.now().toString(36)}@example.test`;
      await gw.cli([
        'user:create',
        '--email',
        email,
        '--password',
        'bench-password-123',
        '--balance-micro-usd',
        '1000000000000',
      ]);
      const created = await gw.cli(['key:create', '--email', email, '--name', `bench-${name}`, ...flags]);
      return { authorization: `Bearer ${String(created.key)}`, id: String(created.id) };
    };
    const keys: Record<MixKey, { authorization: string; id: string }> = {
      none: { authorization: gw.authorization, id: gw.keyId },
      none2: await soloKey('none2', []),
      conc: await soloKey('conc', ['--concurrency', String(LIMITS.key.concurrency)]),
      rpm: await soloKey('rpm', ['--rpm', String(LIMITS.key.rpm)]),
      layers: { authorization: `Bearer ${String(layersKey.key)}`, id: String(layersKey.id) },
      caps: { authorization: `Bearer ${String(capsKey.key)}`, id: String(capsKey.id) },
    };
    const KEY_NAMES: KeyName[] = ['none', 'layers', 'caps'];
    const headersOf = (k: MixKey) => ({ 'content-type': 'application/json', authorization: keys[k].authorization });
    const body = JSON.stringify({
      model: 'bench-paced',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: PACED.outputTokens,
    });
    const gwUrl = `${gw.url}/v1/chat/completions`;
    const simChatUrl = `${simUrl}/v1/chat/completions`;

    // The limits are really in force: the limited keys answer with the tightest layer's headers.
    const rateHeaders: Record<MixKey, string> = {} as Record<MixKey, string>;
    for (const k of MIX_KEYS) {
      const res = await fetch(gwUrl, { method: 'POST', headers: headersOf(k), body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`key ${k}: status ${res.status}`);
      const limitReq = res.headers.get('x-ratelimit-limit-requests');
      const limitTok = res.headers.get('x-ratelimit-limit-tokens');
      rateHeaders[k] = limitReq ? `requests ${limitReq}, tokens ${limitTok}` : 'none';
      if ((k.startsWith('none') || k === 'conc') !== (limitReq === null))
        throw new Error(`key ${k}: unexpected rate-limit headers (${rateHeaders[k]})`);
    }
    log(`rate-limit headers: ${MIX_KEYS.map((k) => `${k}: ${rateHeaders[k]}`).join('; ')}`);

    const redisPid = Number(/process_id:(\d+)/.exec(await gw.redis.info('server'))?.[1]);
    const db = new pg.Client({ connectionString: gw.databaseUrl });
    await db.connect();
    run.onEnd(() => db.end());
    const dbPid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const pgPids = async () => (await gw.postgresBackends()).filter((p) => p !== dbPid);
    const roles = async () => ({
      api: [gw.api.pid],
      worker: [gw.worker.pid],
      redis: [redisPid],
      postgres: await pgPids(),
      sim: [sim.pid],
    });
    const ownPids = async () => [process.pid, ...Object.values(await roles()).flat()];
    const quiet = new QuietGuard({
      busy: 0.15,
      waitS: num('BENCH_QUIET_WAIT_S', 20),
      budgetS: num('BENCH_QUIET_BUDGET_S', 60),
      log,
    });
    const usageCount = async (keyId: string) =>
      Number(
        (await db.query<{ n: string }>('SELECT count(*) AS n FROM usage_records WHERE api_key_id = $1', [keyId]))
          .rows[0]!.n,
      );
    const waitUsage = async (keyId: string, atLeast: number, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if ((await usageCount(keyId)) >= atLeast) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    };

    // Warm-up: JIT, pools, the balance and quota counters loaded into Redis.
    log('warming up');
    await cannon({ url: simChatUrl, connections: CONNECTIONS, durationS: 1, body, headers: headersOf('none') });
    for (const k of MIX_KEYS)
      await cannon({
        url: gwUrl,
        connections: CONNECTIONS,
        durationS: PHASE_KEYS.includes(k) ? WARMUP_S : 1,
        body,
        headers: headersOf(k),
      });
    await gw.usageDrained();

    // ---- 1. Load at 50 connections: the keys alternate, round after round -------------------
    let retries = RETRY_BUDGET;
    const measure = async (key: MixKey | 'sim', round: number): Promise<LoadPhase> => {
      await quiet.wait();
      const r = await roles();
      const meter = startMeter(key === 'sim' ? { sim: r.sim } : r, await ownPids());
      const load = await cannon({
        url: key === 'sim' ? simChatUrl : gwUrl,
        connections: CONNECTIONS,
        durationS: DURATION_S,
        body,
        headers: headersOf(key === 'sim' ? 'none' : key),
      });
      alive();
      // The worker writes this phase's usage records after the load stops: counted too.
      if (key !== 'sim' && !(await gw.usageDrained())) log('usage drain did not finish within 15 s');
      const late = await roles();
      const m = meter.stop(key === 'sim' ? {} : late);
      const cpu = key === 'sim' ? m.cpuUs.sim! : m.cpuUs.api! + m.cpuUs.worker! + m.cpuUs.redis!;
      log(
        `${key} round ${round}: ${Math.round(load.rps)} req/s p50 ${load.p50.toFixed(2)} p99 ${load.p99.toFixed(2)} ms ` +
          `non-2xx ${load.non2xx} errors ${load.errors}+${load.timeouts} cpu ${Math.round(cpu / Math.max(1, load.ok))} µs/call foreign ${pct(m.foreign)}`,
      );
      return { key, round, load, meter: m, attempts: 1 };
    };
    const measureKept = async (key: MixKey | 'sim', round: number): Promise<LoadPhase> => {
      let phase = await measure(key, round);
      let attempts = 1;
      while (phase.meter.foreign > NOISY && retries > 0 && attempts < 2) {
        retries--;
        attempts++;
        log(`  foreign load ${pct(phase.meter.foreign)}: measuring again (${retries} retries left)`);
        const again = await measure(key, round);
        if (again.meter.foreign < phase.meter.foreign) phase = again;
      }
      return { ...phase, attempts };
    };
    const phases: LoadPhase[] = [await measureKept('sim', 0)];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? PHASE_KEYS : [...PHASE_KEYS].reverse();
      for (const k of order) phases.push(await measureKept(k, round));
    }

    // ---- 1b. Mixed: the three keys at once, the connections split between them ---------------
    // Every key's calls meet the same machine at the same moment, so drift between phases (which
    // on this machine moves the p50 by more than the target) cancels out of the difference.
    const mixed: MixedRound[] = [];
    for (let round = 0; round < MIXED_ROUNDS; round++) {
      await quiet.wait();
      const meter = startMeter({}, await ownPids());
      // The key that starts first (and gets the extra connections) rotates from round to round.
      const order = MIX_KEYS.map((_, i) => MIX_KEYS[(i + round) % MIX_KEYS.length]!);
      const split = order.map(
        (_, i) => Math.floor(CONNECTIONS / order.length) + (i < CONNECTIONS % order.length ? 1 : 0),
      );
      const started = await Promise.all(
        order.map((k, i) =>
          cannon({ url: gwUrl, connections: split[i]!, durationS: DURATION_S, body, headers: headersOf(k) }),
        ),
      );
      alive();
      await gw.usageDrained();
      const m = meter.stop();
      const byKey = Object.fromEntries(MIX_KEYS.map((k) => [k, started[order.indexOf(k)]!])) as Record<
        MixKey,
        CannonResult
      >;
      const connections = Object.fromEntries(MIX_KEYS.map((k) => [k, split[order.indexOf(k)]!])) as Record<
        MixKey,
        number
      >;
      log(
        `mixed round ${round} (${order.join(', ')}): ${MIX_KEYS.map((k) => `${k} p50 ${byKey[k].p50.toFixed(2)}`).join(', ')} foreign ${pct(m.foreign)}`,
      );
      mixed.push({ byKey, foreign: m.foreign, connections });
    }

    // ---- 2. Sequential: one request at a time, the targets interleaved ----------------------
    log(`sequential: ${SEQ_N} calls per target, interleaved`);
    await quiet.wait();
    const seqMeter = startMeter({}, await ownPids());
    const seq = await sequentialInterleaved(
      [
        { name: 'sim', url: simChatUrl, headers: headersOf('none'), body },
        ...SEQ_KEYS.map((k) => ({ name: k, url: gwUrl, headers: headersOf(k), body })),
      ],
      SEQ_N,
    );
    const seqM = seqMeter.stop();
    await gw.usageDrained();
    log(`sequential, instant upstream: ${SEQ_INSTANT_N} calls per target, interleaved`);
    const instantBody = body.replace('bench-paced', 'bench-instant');
    await quiet.wait();
    const seqInstantMeter = startMeter({}, await ownPids());
    const seqInstant = await sequentialInterleaved(
      [
        { name: 'sim', url: `${simInstantUrl}/v1/chat/completions`, headers: headersOf('none'), body: instantBody },
        ...SEQ_KEYS.map((k) => ({ name: k, url: gwUrl, headers: headersOf(k), body: instantBody })),
      ],
      SEQ_INSTANT_N,
      100,
    );
    const seqInstantM = seqInstantMeter.stop();
    await gw.usageDrained();

    // ---- 3. Redis commands per call: INFO commandstats around exactly COUNT_N calls ----------
    const counts: Record<
      KeyName,
      { delta: Map<string, { calls: number; usec: number }>; calls: number; foreignClients: string[]; nonOk: number }
    > = {} as never;
    for (const k of KEY_NAMES) {
      await quiet.wait();
      const already = await usageCount(keys[k].id);
      const r = await roles();
      const own = { ...r, bench: [process.pid] };
      const before = await commandStats(gw.redis);
      const started = Date.now();
      const load = await cannon({ url: gwUrl, connections: CONNECTIONS, amount: COUNT_N, body, headers: headersOf(k) });
      alive();
      // Every call's usage record is in Postgres (the worker's share of the work is done) before
      // the second snapshot; waiting asks Postgres, not Redis.
      if (!(await waitUsage(keys[k].id, already + COUNT_N))) log(`${k}: usage records not all drained`);
      const after = await commandStats(gw.redis);
      const foreign = await foreignActiveClients(gw.redis, own, Math.ceil((Date.now() - started) / 1000) + 1);
      counts[k] = {
        delta: statsDelta(before, after),
        calls: load.ok,
        foreignClients: foreign,
        nonOk: load.non2xx + load.errors + load.timeouts,
      };
      log(
        `commandstats ${k}: ${load.ok} calls, ${[...counts[k].delta].map(([n, s]) => `${n} ${s.calls}`).join(', ')}${foreign.length ? `; foreign clients: ${foreign.join(', ')}` : ''}`,
      );
    }

    // ---- 4. MONITOR trace of a few sequential calls: who sends what ------------------------
    const traces: Record<KeyName, TracedCommand[]> = {} as never;
    for (const k of KEY_NAMES) {
      const already = await usageCount(keys[k].id);
      const r = await roles();
      traces[k] = await monitorTrace(REDIS_URL, { api: r.api, worker: r.worker }, async () => {
        const res = await sequentialInterleaved([{ name: k, url: gwUrl, headers: headersOf(k), body }], TRACE_N, 0);
        if (res[k]!.failures) log(`${k}: ${res[k]!.failures} failed calls in the trace`);
        await waitUsage(keys[k].id, already + TRACE_N);
      });
    }

    // ---- report -------------------------------------------------------------------------------
    markdown = render({
      phases,
      mixed,
      seq,
      seqForeign: seqM.foreign,
      seqInstant,
      seqInstantForeign: seqInstantM.foreign,
      counts,
      traces,
      rateHeaders,
      keyIds: keys,
    });
    apiCalls = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM usage_records')).rows[0]!.n);
    succeeded = true;
  } finally {
    await run.end(succeeded);
  }
  // The API writes its profile when it exits (in cleanup).
  const profile = profileDir ? await newestProfile(profileDir) : undefined;
  if (profile) markdown += await renderProfile(profile, apiCalls);
  const resultsDir = process.env.BENCH_RESULTS_DIR
    ? path.resolve(process.env.BENCH_RESULTS_DIR)
    : path.join(root, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  // A profiled run is slower: its numbers go to a file of their own.
  await writeFile(path.join(resultsDir, profileDir ? 'limits.profiled.md' : 'limits.md'), markdown);
  process.stdout.write(markdown);
}

async function renderProfile(file: string, calls: number): Promise<string> {
  const p = await summarizeProfile(file, root);
  const out = [
    '',
    `#### Where the API's time goes (V8 CPU profile of the API over the whole run: ${f0(calls)} calls of all three keys, \`${path.basename(file)}\`)`,
    '',
  ];
  out.push(
    table(
      ['function (self time)', 'share of busy time', 'µs per call'],
      p.self.slice(0, 15).map(([fn, us]) => [`\`${fn}\``, pct(us / p.busyUs), f1(us / calls)]),
      ['l', 'r', 'r'],
    ),
  );
  out.push(
    '',
    table(
      ['self time by origin', 'share of busy time', 'µs per call'],
      p
        .byOrigin()
        .slice(0, 12)
        .map(([o, us]) => [o, pct(us / p.busyUs), f1(us / calls)]),
      ['l', 'r', 'r'],
    ),
  );
  const inc = (label: string, match: (fn: string) => boolean) => [
    label,
    pct(p.inclusiveUs(match) / p.busyUs),
    f1(p.inclusiveUs(match) / calls),
  ];
  out.push(
    '',
    table(
      [
        'limits code (inclusive time: the function and what it calls, synchronous part)',
        'share of busy time',
        'µs per call',
      ],
      [
        inc('`admit` (plan building, limitRules, JSON, sending the EVALSHA, reading the reply, headers)', (fn) =>
          /^admit \(shared\/limits\/admission/.test(fn),
        ),
        inc('`finish` (plan building, JSON, sending the EVALSHA)', (fn) =>
          /^finish \(shared\/limits\/admission/.test(fn),
        ),
        inc('`limitRules` (shared/limits/layers.ts)', (fn) => fn.startsWith('limitRules (')),
        inc('`rateHeaders`', (fn) => fn.startsWith('rateHeaders (')),
        inc('`LeaseRenewer` track / untrack / renew', (fn) =>
          /^(track|untrack|renew) \(shared\/limits\/lease-renewer/.test(fn),
        ),
        inc('everything in shared/limits/', (fn) => fn.includes('(shared/limits/')),
      ],
      ['l', 'r', 'r'],
    ),
    '',
    "Sampled in a separate run with `BENCH_PROFILE_DIR` (the profiler slows the API down; that run's latency figures are not the ones above).",
    'V8 samples wall time of the main thread (time preempted inside `writev` counts there); µs per call = sampled time ÷ every call of the run.',
    '',
  );
  return `${out.join('\n')}\n`;
}

interface RenderInput {
  phases: LoadPhase[];
  mixed: MixedRound[];
  seq: Record<string, { latencies: number[]; failures: number }>;
  seqForeign: number;
  seqInstant: Record<string, { latencies: number[]; failures: number }>;
  seqInstantForeign: number;
  counts: Record<
    KeyName,
    { delta: Map<string, { calls: number; usec: number }>; calls: number; foreignClients: string[]; nonOk: number }
  >;
  traces: Record<KeyName, TracedCommand[]>;
  rateHeaders: Record<MixKey, string>;
  keyIds: Record<MixKey, { id: string }>;
}

function render(input: RenderInput): string {
  const { phases, mixed, seq, counts, traces } = input;
  const KEY_NAMES: KeyName[] = ['none', 'layers', 'caps'];
  const out: string[] = [];
  out.push('### Results: rate-limit layers (issue 3)', '');
  out.push(`Command: \`npm run bench:limits\`  `);
  out.push(`Date: ${new Date().toISOString()}, commit ${commit(root)}  `);
  out.push(`Machine: ${machine()}  `);
  out.push(
    `Settings: paced upstream (${PACED.latencyMs} ms before the answer), JSON chat, ${CONNECTIONS} connections × ${DURATION_S} s per phase, ` +
      `${ROUNDS} rounds per key (keys alternating) + ${MIXED_ROUNDS} mixed rounds, ${SEQ_N} sequential calls per target, commandstats over ${COUNT_N} calls per key, MONITOR over ${TRACE_N} calls per key`,
    '',
  );

  out.push('#### The keys', '');
  out.push(
    table(
      [
        'key',
        'key layer',
        'account layer (`user:limits`)',
        'group layer (catalog)',
        'quota caps',
        'rate-limit headers answered',
      ],
      [
        ['no limits (spine)', 'none', 'none', '`default`: none', 'none', input.rateHeaders.none],
        [
          'no limits, 2nd account (A/A)',
          'none',
          'none (its own account)',
          '`default`: none',
          'none',
          input.rateHeaders.none2,
        ],
        [
          'key concurrency only',
          `concurrency ${f0(LIMITS.key.concurrency)}`,
          'none (its own account)',
          '`default`: none',
          'none',
          input.rateHeaders.conc,
        ],
        [
          'key RPM only',
          `rpm ${f0(LIMITS.key.rpm)}`,
          'none (its own account)',
          '`default`: none',
          'none',
          input.rateHeaders.rpm,
        ],
        [
          'all layers set',
          `rpm ${f0(LIMITS.key.rpm)}, tpm ${f0(LIMITS.key.tpm)}, concurrency ${f0(LIMITS.key.concurrency)}`,
          `rpm ${f0(LIMITS.user.rpm)}, tpm ${f0(LIMITS.user.tpm)}, concurrency ${f0(LIMITS.user.concurrency)}`,
          `\`limited\`: rpm ${f0(LIMITS.group.rpm)}, tpm ${f0(LIMITS.group.tpm)}, concurrency ${f0(LIMITS.group.concurrency)}`,
          'none',
          input.rateHeaders.layers,
        ],
        [
          'all layers + quota caps',
          'as above',
          'as above (same account)',
          'as above',
          `total ${f0(LIMITS.caps.total)}, daily ${f0(LIMITS.caps.daily)}, monthly ${f0(LIMITS.caps.monthly)} µUSD`,
          input.rateHeaders.caps,
        ],
      ],
    ),
    '',
  );

  // Load table: every kept phase, then pooled per key.
  out.push(`#### Load: ${CONNECTIONS} connections, closed loop (autocannon)`, '');
  const pooled = (k: MixKey | 'sim') => {
    const ps = phases.filter((p) => p.key === k);
    const lat = ps.flatMap((p) => p.load.latencies);
    const s = summarize(lat);
    const ok = ps.reduce((a, p) => a + p.load.ok, 0);
    const elapsed = ps.reduce((a, p) => a + p.load.elapsedS, 0);
    const sumCpu = (role: string) => ps.reduce((a, p) => a + (p.meter.cpuUs[role] ?? 0), 0) / Math.max(1, ok);
    return {
      ...s,
      rps: ok / elapsed,
      cpu: k === 'sim' ? sumCpu('sim') : sumCpu('api') + sumCpu('worker') + sumCpu('redis'),
      detail:
        k === 'sim'
          ? ''
          : `api ${f0(sumCpu('api'))} + worker ${f0(sumCpu('worker'))} + redis ${f0(sumCpu('redis'))} [postgres ${f0(sumCpu('postgres'))}]`,
      bad: ps.reduce((a, p) => a + p.load.non2xx + p.load.errors + p.load.timeouts, 0),
      rounds: ps.map((p) => `${f2(p.load.p50)}${p.meter.foreign > NOISY ? ' ⚠' : ''}`).join(', '),
      foreign: Math.max(...ps.map((p) => p.meter.foreign)),
      hostBusy: ps.reduce((a, p) => a + p.meter.hostBusy, 0) / Math.max(1, ps.length),
    };
  };
  const base = pooled('none');
  const rows: (string | number)[][] = [];
  for (const k of ['sim', ...PHASE_KEYS] as const) {
    const p = pooled(k);
    rows.push([
      k === 'sim' ? 'simulator (direct)' : KEY_LABEL[k],
      f0(p.rps),
      f2(p.p50),
      f2(p.p99),
      k === 'sim' || k === 'none' ? '' : `${signed(p.p50 - base.p50)} / ${signed(p.p99 - base.p99)}`,
      k === 'sim' ? '' : `${signed(p.p50 - pooled('sim').p50)}`,
      p.rounds,
      f0(p.bad),
      f0(p.cpu),
      p.detail,
      `${pct(p.hostBusy)} / ${pct(p.foreign)}`,
    ]);
  }
  out.push(
    table(
      [
        'target',
        'calls/s',
        'p50 ms',
        'p99 ms',
        'Δ p50 / p99 vs no limits',
        'p50 − simulator',
        'p50 per round',
        'errors + non-2xx',
        'CPU µs/call',
        'CPU detail µs/call',
        'host busy / max foreign',
      ],
      rows,
      ['l', 'r', 'r', 'r', 'r', 'r', 'l', 'r', 'r', 'l', 'r'],
    ),
    '',
  );

  out.push(
    `#### Mixed: six keys at once (${MIX_KEYS.map((k) => mixed[0]?.connections[k]).join(' + ')} connections, the first-started key rotating), ${mixed.length} rounds of ${DURATION_S} s`,
    '',
  );
  const mixedBase = summarize(mixed.flatMap((r) => r.byKey.none.latencies));
  out.push(
    table(
      ['key', 'calls/s', 'p50 ms', 'p99 ms', 'Δ p50 / p99 vs no limits', 'Δ p50 per round', 'errors + non-2xx'],
      MIX_KEYS.map((k) => {
        const s = summarize(mixed.flatMap((r) => r.byKey[k].latencies));
        const rps = mixed.reduce((a, r) => a + r.byKey[k].ok, 0) / mixed.reduce((a, r) => a + r.byKey[k].elapsedS, 0);
        return [
          KEY_LABEL[k],
          f0(rps),
          f2(s.p50),
          f2(s.p99),
          k === 'none' ? '' : `${signed(s.p50 - mixedBase.p50)} / ${signed(s.p99 - mixedBase.p99)}`,
          k === 'none' ? '' : mixed.map((r) => signed(r.byKey[k].p50 - r.byKey.none.p50)).join(', '),
          mixed.reduce((a, r) => a + r.byKey[k].non2xx + r.byKey[k].errors + r.byKey[k].timeouts, 0),
        ];
      }),
      ['l', 'r', 'r', 'r', 'r', 'l', 'r'],
    ),
    '',
    `Foreign load: ${mixed.map((r) => pct(r.foreign)).join(', ')}. Every key here meets the same machine at the same moment, so`,
    'phase-to-phase drift cancels; the second no-limits account shows how far two identical kinds of traffic land apart. The two single-limit',
    'keys separate the limit work from the response headers: a concurrency limit adds Lua work but no `X-RateLimit-*` headers, an RPM limit',
    'adds both.',
    '',
  );

  const seqTable = (res: Record<string, { latencies: number[]; failures: number }>) => {
    const rows: (string | number)[][] = [];
    const base = summarize(res.none!.latencies);
    const simS = summarize(res.sim!.latencies);
    for (const k of ['sim', ...SEQ_KEYS] as const) {
      const s = summarize(res[k]!.latencies);
      rows.push([
        k === 'sim' ? 'simulator (direct)' : KEY_LABEL[k],
        s.n,
        res[k]!.failures,
        f3(s.p50),
        f3(s.p90),
        f3(s.p99),
        k === 'sim' || k === 'none' ? '' : signed(s.p50 - base.p50, 3),
        k === 'sim' ? '' : signed(s.p50 - simS.p50, 3),
      ]);
    }
    return table(
      ['target', 'n', 'failures', 'p50 ms', 'p90 ms', 'p99 ms', 'Δ p50 vs no limits', 'p50 − simulator'],
      rows,
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    );
  };
  out.push('#### Sequential: one call at a time, the targets interleaved call by call (paced upstream)', '');
  out.push(seqTable(seq));
  out.push('', `Foreign load during the sequential run: ${pct(input.seqForeign)}.`, '');
  out.push(
    "#### Sequential, instant upstream (the gateway's own time, without the paced simulator's timer jitter)",
    '',
  );
  out.push(seqTable(input.seqInstant));
  out.push('', `Foreign load during the run: ${pct(input.seqInstantForeign)}.`, '');

  // Redis commands per call.
  out.push(
    `#### Redis commands per call: \`INFO commandstats\` around exactly ${f0(COUNT_N)} calls at ${CONNECTIONS} connections`,
    '',
  );
  // Redis 7 counts the commands a script runs in commandstats too: split what clients send (round
  // trips) from what runs inside the scripts, by where the MONITOR trace saw each name mostly (the
  // worker's occasional EXISTS must not make the finish script's EXISTS on every call a round trip).
  const seen = new Map<string, { sent: number; lua: number }>();
  for (const k of KEY_NAMES) {
    for (const t of traces[k]) {
      const name = t.command.split(':')[0]!;
      const n = seen.get(name) ?? { sent: 0, lua: 0 };
      if (t.role === 'lua') n.lua++;
      else n.sent++;
      seen.set(name, n);
    }
  }
  const sentNames = new Set(['evalsha', 'eval', 'xautoclaim', 'xgroup']);
  for (const [name, n] of seen) if (n.sent > n.lua) sentNames.add(name);
  const perCall = (k: KeyName, n: string) => {
    const s = counts[k].delta.get(n);
    return s ? `${f3(s.calls / counts[k].calls)} (${f0(s.usec / counts[k].calls)} µs)` : '0';
  };
  const names = [...new Set(KEY_NAMES.flatMap((k) => [...counts[k].delta.keys()]))]
    .filter((n) => n !== 'info')
    .sort((a, b) => (counts.caps.delta.get(b)?.calls ?? 0) - (counts.caps.delta.get(a)?.calls ?? 0));
  const sum = (k: KeyName, sent: boolean) =>
    [...counts[k].delta]
      .filter(([n]) => n !== 'info' && sentNames.has(n) === sent)
      .reduce((a, [, s]) => a + s.calls, 0) / counts[k].calls;
  const usecSum = (k: KeyName) =>
    [...counts[k].delta].filter(([n]) => n !== 'info').reduce((a, [, s]) => a + s.usec, 0) / counts[k].calls;
  const cmdRows: (string | number)[][] = [];
  cmdRows.push(['*sent by clients (round trips):*', '', '', '']);
  for (const n of names.filter((x) => sentNames.has(x)))
    cmdRows.push([`\`${n}\``, ...KEY_NAMES.map((k) => perCall(k, n))]);
  cmdRows.push(['**round trips per call**', ...KEY_NAMES.map((k) => `**${f3(sum(k, true))}**`)]);
  cmdRows.push(['*run inside the scripts:*', '', '', '']);
  for (const n of names.filter((x) => !sentNames.has(x)))
    cmdRows.push([`\`${n}\``, ...KEY_NAMES.map((k) => perCall(k, n))]);
  cmdRows.push(['**commands inside scripts per call**', ...KEY_NAMES.map((k) => `**${f3(sum(k, false))}**`)]);
  cmdRows.push(['Redis command time per call (µs)', ...KEY_NAMES.map((k) => f0(usecSum(k)))]);
  cmdRows.push(['calls completed / failed', ...KEY_NAMES.map((k) => `${f0(counts[k].calls)} / ${counts[k].nonOk}`)]);
  cmdRows.push([
    'foreign Redis clients active',
    ...KEY_NAMES.map((k) => (counts[k].foreignClients.length ? `⚠ ${counts[k].foreignClients.length}` : 'none')),
  ]);
  out.push(
    table(['command (server-wide delta ÷ calls)', ...KEY_NAMES.map((k) => KEY_LABEL[k])], cmdRows, [
      'l',
      'r',
      'r',
      'r',
    ]),
  );
  out.push(
    '',
    "Per call, with the Redis server time the command took in brackets (a script's `evalsha` time includes the commands it runs).",
    "Redis 7 counts the commands a script runs in `commandstats` too; they are split out below the round trips. The orchestrator's own",
    '`INFO` is left out; usage records are awaited in Postgres, not through Redis. Each call has one admission and one finish, but under',
    'load the API batches the operations that gather in one event-loop turn into one `STEP` script call (`shared/limits/step-batch.ts`),',
    "so fewer than 2 `evalsha` per call reach Redis; the sequential trace below shows one `admit` and one `finish` per call. The worker's",
    '`claim_usage` and `ack_usage` run once per batch of drained usage records, not once per call.',
    '',
  );

  // MONITOR attribution.
  out.push(`#### Who sends what: MONITOR trace of ${TRACE_N} sequential calls per key`, '');
  const traceKeys = new Set<string>();
  for (const k of KEY_NAMES) for (const t of traces[k]) if (t.role !== 'lua') traceKeys.add(`${t.role} ${t.command}`);
  const traceRows = [...traceKeys]
    .sort()
    .map((tk) => [
      `${tk.split(' ')[0]}: \`${tk.split(' ').slice(1).join(' ')}\``,
      ...KEY_NAMES.map((k) =>
        f2(traces[k].filter((t) => t.role !== 'lua' && `${t.role} ${t.command}` === tk).length / TRACE_N),
      ),
    ]);
  const inScript = (k: KeyName, script: string) =>
    traces[k].filter((t) => t.role === 'lua' && t.inScript === `api ${script}`).length / TRACE_N;
  traceRows.push(['keyspace commands inside `admit`', ...KEY_NAMES.map((k) => f1x(inScript(k, 'evalsha:admit')))]);
  traceRows.push(['keyspace commands inside `finish`', ...KEY_NAMES.map((k) => f1x(inScript(k, 'evalsha:finish')))]);
  out.push(
    table(['process: command (per call)', ...KEY_NAMES.map((k) => KEY_LABEL[k])], traceRows, ['l', 'r', 'r', 'r']),
  );
  out.push(
    '',
    "EVALSHA lines are named by the SHA-1 of the gateway's scripts (`shared/limits/lua/*.lua`, `shared/billing/scripts.ts`).",
    "The API sends `admit` before the upstream call — balance, quota caps and every layer's RPM, TPM and concurrency decided in that one",
    'round trip — and `finish` after it (charge, TPM correction, lease release and the usage record, also one round trip).',
    '',
  );

  // Targets.
  // The lease renewer's `renew` is one EVALSHA per API process every ~20 s (not per call): not counted.
  const apiPerCall = (k: KeyName) =>
    traces[k].filter((t) => t.role === 'api' && t.command !== 'evalsha:renew').length / TRACE_N;
  // Admission decisions made in Redis: a lone `admit`, or the admits inside a batched STEP call (a
  // grant's calls are decided in the API process, from the grant: none of them counts).
  const admitsIn = (command: string) =>
    command === 'evalsha:admit' ? 1 : Number(/^evalsha:step\((\d+) admit/.exec(command)?.[1] ?? 0);
  const admitPerCall = (k: KeyName) =>
    traces[k].filter((t) => t.role === 'api').reduce((sum, t) => sum + admitsIn(t.command), 0) / TRACE_N;
  const loadDelta = pooled('layers').p50 - base.p50;
  const roundDeltas = [...new Set(phases.map((p) => p.round))]
    .map((r) => {
      const a = phases.find((p) => p.key === 'layers' && p.round === r);
      const b = phases.find((p) => p.key === 'none' && p.round === r);
      return a && b ? signed(a.load.p50 - b.load.p50) : undefined;
    })
    .filter((x) => x !== undefined);
  const mixedLayers = summarize(mixed.flatMap((r) => r.byKey.layers.latencies)).p50;
  const mixedNone = summarize(mixed.flatMap((r) => r.byKey.none.latencies)).p50;
  const mixedDelta = mixedLayers - mixedNone;
  const seqBase = summarize(seq.none!.latencies);
  const seqDelta = summarize(seq.layers!.latencies).p50 - seqBase.p50;
  const instBase = summarize(input.seqInstant.none!.latencies);
  const instDelta = summarize(input.seqInstant.layers!.latencies).p50 - instBase.p50;
  const bad =
    phases.reduce((a, p) => a + p.load.non2xx + p.load.errors + p.load.timeouts, 0) +
    mixed.reduce(
      (a, r) => a + MIX_KEYS.reduce((x, k) => x + r.byKey[k].non2xx + r.byKey[k].errors + r.byKey[k].timeouts, 0),
      0,
    ) +
    KEY_NAMES.reduce((a, k) => a + counts[k].nonOk, 0) +
    SEQ_KEYS.reduce((a, k) => a + (seq[k]?.failures ?? 0) + (input.seqInstant[k]?.failures ?? 0), 0);
  const checks: [string, string, boolean][] = [
    [
      'the limit decision takes at most one Redis round trip per call (all layers set; grants: none)',
      `API → Redis per call: ${f2(admitPerCall('layers'))} admission decisions in Redis (the rest from grants), ${f2(apiPerCall('layers'))} commands in all (\`finish\`, grants and their give-backs); nothing else but the process-wide lease \`renew\` every ~20 s`,
      admitPerCall('layers') <= 1 && apiPerCall('layers') <= 2,
    ],
    [
      `added p50 with all layers ≤ ${TARGET_DELTA_MS} ms over no limits — ${CONNECTIONS} connections, one key per phase`,
      `${signed(loadDelta)} ms (${f2(pooled('layers').p50)} vs ${f2(base.p50)}; per round ${roundDeltas.join(', ')}; ` +
        `the A/A pair, two keys without limits, by the same method: ${signed(pooled('none2').p50 - base.p50)} ms)`,
      loadDelta <= TARGET_DELTA_MS,
    ],
    [
      // The same comparison with both keys in the same phases (drift between phases cancels out).
      `added p50 with all layers ≤ ${TARGET_DELTA_MS} ms over no limits — ${CONNECTIONS} connections, six keys at once (mixed)`,
      `${signed(mixedDelta)} ms (${f2(mixedLayers)} vs ${f2(mixedNone)}; per round ${mixed.map((r) => signed(r.byKey.layers.p50 - r.byKey.none.p50)).join(', ')}; ` +
        `A/A: ${signed(summarize(mixed.flatMap((r) => r.byKey.none2.latencies)).p50 - mixedNone)} ms)`,
      mixedDelta <= TARGET_DELTA_MS,
    ],
    [
      `added p50 with all layers ≤ ${TARGET_DELTA_MS} ms over no limits — sequential, paced upstream`,
      `${signed(seqDelta, 3)} ms (${f3(summarize(seq.layers!.latencies).p50)} vs ${f3(seqBase.p50)}; A/A: ${signed(summarize(seq.none2!.latencies).p50 - seqBase.p50, 3)} ms)`,
      seqDelta <= TARGET_DELTA_MS,
    ],
    [
      `added p50 with all layers ≤ ${TARGET_DELTA_MS} ms over no limits — sequential, instant upstream`,
      `${signed(instDelta, 3)} ms (${f3(summarize(input.seqInstant.layers!.latencies).p50)} vs ${f3(instBase.p50)}; A/A: ${signed(summarize(input.seqInstant.none2!.latencies).p50 - instBase.p50, 3)} ms)`,
      instDelta <= TARGET_DELTA_MS,
    ],
    ['zero errors and non-2xx', `${bad}`, bad === 0],
  ];
  out.push('#### Targets', '');
  out.push(
    table(
      ['target', 'measured', 'result'],
      checks.map(([t, m, p]) => [t, m, verdict(p)]),
    ),
  );
  out.push('');
  return `${out.join('\n')}\n`;
}

const f1x = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');

await main();
