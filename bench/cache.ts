// `npm run bench:cache`: the exact-match response cache (issue 33). In one run, against one gateway
// (API and worker processes), the upstream simulator answering at once and a bare proxy answering
// from memory (bench/bare-proxy.ts --memory): (a) what a hit adds at 50 connections over that bare
// proxy, p50; (b) hits per second against misses per second (every miss a new request, looked up,
// sent upstream and stored); (c) what an entry costs Redis: used_memory growth per entry stored
// against the entry's own bytes (BENCH_CACHE_ENTRIES entries, extrapolated to a million). See
// bench/README.md, "Response cache".
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { defineScripts } from '../shared/lifecycle/redis-scripts.js';
import { connectRedis, createRedis } from '../shared/redis/client.js';
import { redisKeys } from '../shared/redis/keys.js';
import { entryCost, ResponseCacheStore } from '../shared/response-cache/store.js';
import { BenchRun } from './lib/bench-run.js';
import { cannon, type CannonResult } from './lib/cannon.js';
import { startGateway } from './lib/gateway.js';
import { readUrl } from './lib/processes.js';
import { QuietGuard } from './lib/quiet.js';
import { publishResult } from './lib/results.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const DURATION_S = num('BENCH_DURATION_S', 8);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50);
const ENTRIES = num('BENCH_CACHE_ENTRIES', 100_000);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = (message: string) => process.stderr.write(`[bench:cache] ${message}\n`);
let seq = 0;

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-cache', log);
  let ok = false;
  try {
    const sim = run.spawn('sim', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    const bare = run.spawn('bare-memory', path.join(here, 'bare-proxy.js'), ['--upstream', simUrl, '--memory']);
    const bareUrl = await readUrl(bare);
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { 'sim-openai': simUrl },
      models: { 'bench-chat': 'sim-openai' },
      // Room for every miss the throughput phase stores.
      env: { CACHE_MAX_BYTES: String(4 * 1024 * 1024 * 1024) },
      postgresAdminUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      redisUrl: REDIS_URL,
    });
    run.onEnd(() => gw.close());
    const created = await gw.cli(['key:create', '--email', gw.email, '--name', 'bench-cache', '--cache-ttl', '3600']);
    const cached = { 'content-type': 'application/json', authorization: `Bearer ${String(created.key)}` };
    const body = JSON.stringify({
      model: 'bench-chat',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 16,
    });

    // Warm both (the entry stored, JIT and pools warm), then (a) at 50 connections, the bare proxy then the gateway.
    for (const target of [bareUrl, gw.url]) {
      const first = await fetch(`${target}/v1/chat/completions`, { method: 'POST', headers: cached, body });
      await first.arrayBuffer();
    }
    const stored = await waitForHit(gw.url, cached, body);
    log(`entry stored after ${stored} probes; warming up`);
    for (const target of [bareUrl, gw.url])
      await cannon({
        url: `${target}/v1/chat/completions`,
        connections: CONNECTIONS,
        durationS: 2,
        headers: cached,
        body,
      });
    // The machine is shared: each phase waits (bounded) for the other processes to calm down.
    const quiet = new QuietGuard({ busy: 0.15, waitS: 60, budgetS: 300, log });
    const busy: Record<string, number> = {};
    busy.bare = await quiet.wait();
    const bareRun = await cannon({
      url: `${bareUrl}/v1/chat/completions`,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      headers: cached,
      body,
    });
    busy.hit = await quiet.wait();
    const hitRun = await cannon({
      url: `${gw.url}/v1/chat/completions`,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      headers: cached,
      body,
    });
    await gw.usageDrained(60_000);
    // The same call with the cache bypassed (X-Service-Cache-TTL: 0): the gateway without it, for scale.
    busy.bypass = await quiet.wait();
    const bypassRun = await cannon({
      url: `${gw.url}/v1/chat/completions`,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      headers: { ...cached, 'x-service-cache-ttl': '0' },
      body,
    });
    await gw.usageDrained(60_000);

    // (b) misses: a new request each time (looked up, sent upstream, stored).
    busy.miss = await quiet.wait();
    const missRun = await cannon({
      url: `${gw.url}/v1/chat/completions`,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      headers: cached,
      body,
      perRequestBody: () =>
        JSON.stringify({
          model: 'bench-chat',
          messages: [{ role: 'user', content: `hello ${process.pid} ${++seq}` }],
          max_tokens: 16,
        }),
    });
    await gw.usageDrained(60_000);
    const statuses = await gw.usageSummary();

    // (c) the memory an entry costs, with an entry as the gateway writes it.
    const memory = await entryMemory(gw.redis, gw.redisPrefix);

    const p50Added = hitRun.p50 - bareRun.p50;
    const ratio = hitRun.rps / missRun.rps;
    const failures = (r: CannonResult) => r.non2xx + r.errors + r.timeouts;
    const lines = [
      `# Response cache benchmark (${new Date().toISOString()})`,
      '',
      `Command: \`npm run bench:cache\`. ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${CONNECTIONS} connections, ${DURATION_S} s per phase; the instant upstream simulator. Failures (non-2xx, errors, timeouts): bare ${failures(bareRun)}, hits ${failures(hitRun)}, bypassed ${failures(bypassRun)}, misses ${failures(missRun)}. Host CPU busy before each phase (other processes of the shared machine): ${Object.entries(
        busy,
      )
        .map(([k, v]) => `${k} ${Math.round(v * 100)}%`)
        .join(
          ', ',
        )}. Usage records: ${statuses.map((s) => `${s.status_code}${s.error_code ? ` ${s.error_code}` : ''}${s.stream ? ' stream' : ''} × ${s.n}`).join(', ')}.`,
      '',
      '| measure | bare proxy from memory | gateway | target | met |',
      '|---|---|---|---|---|',
      `| a hit, p50 ms at ${CONNECTIONS} connections | ${bareRun.p50.toFixed(2)} | ${hitRun.p50.toFixed(2)} | adds ≤ 1 ms (+${p50Added.toFixed(2)} ms) | ${p50Added <= 1 ? 'yes' : '**MISSED**'} |`,
      `| a hit, p99 ms | ${bareRun.p99.toFixed(2)} | ${hitRun.p99.toFixed(2)} | | |`,
      `| the same call, cache bypassed (\`X-Service-Cache-TTL: 0\`): p50 ms, calls per second | | ${bypassRun.p50.toFixed(2)}, ${Math.round(bypassRun.rps)} | | |`,
      `| calls per second: hits / misses | ${Math.round(bareRun.rps)} (bare) | ${Math.round(hitRun.rps)} / ${Math.round(missRun.rps)} | hits ≥ 2× misses (${ratio.toFixed(2)}×) | ${ratio >= 2 ? 'yes' : '**MISSED**'} |`,
      '',
      `Memory: ${memory.entries.toLocaleString('en')} entries of ${memory.valueBytes} value bytes (${memory.entryBytes} counted toward CACHE_MAX_BYTES: value, name and bookkeeping) grew Redis's used_memory by ${(memory.growth / 1024 / 1024).toFixed(1)} MiB: ${memory.perEntry.toFixed(0)} bytes per entry, ${(memory.perEntry / memory.entryBytes).toFixed(2)}× the counted bytes; a million such entries ≈ ${((memory.perEntry * 1_000_000) / 1024 / 1024).toFixed(0)} MiB (${memory.entries < 1_000_000 ? 'extrapolated, not measured at a million' : `measured with ${memory.entries.toLocaleString('en')}`}). Redis is shared with whatever else runs on the machine: its own activity falls into the growth.`,
      '',
    ];
    await publishResult(root, 'cache-latest.md', lines.join('\n'));
    ok = true;
  } finally {
    await run.end(ok);
  }
}

/** Probes until the entry the warm-up call stored answers (the store follows the answer). */
async function waitForHit(url: string, headers: Record<string, string>, body: string): Promise<number> {
  for (let i = 1; i <= 200; i++) {
    const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body });
    await res.arrayBuffer();
    if (res.headers.get('x-service-cache') === 'HIT') return i;
  }
  throw new Error('the warm-up answer was never stored');
}

/** Stores ENTRIES entries shaped like the gateway's (the one stored above, under other digests) and reads used_memory around them. */
async function entryMemory(
  admin: import('ioredis').Redis,
  prefix: string,
): Promise<{ entries: number; valueBytes: number; entryBytes: number; growth: number; perEntry: number }> {
  const keys = redisKeys(`${prefix}mem:`);
  const redis = createRedis({ url: REDIS_URL }, { enableAutoPipelining: true });
  defineScripts(redis);
  await connectRedis(redis);
  const gatewayKeys = redisKeys(prefix);
  const [sample] = await admin
    .keys(`${gatewayKeys.cacheEntry('*', '').slice(0, -1)}*`)
    .then((names) => names.filter((n) => !n.endsWith(':idx')));
  const value = sample ? ((await admin.getBuffer(sample)) ?? Buffer.alloc(400, 'x')) : Buffer.alloc(400, 'x');
  const store = new ResponseCacheStore(
    redis,
    keys,
    Number.MAX_SAFE_INTEGER,
    { now: () => Date.now() },
    pino({ level: 'silent' }),
  );
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1] ?? 0);
  const before = await usedMemory();
  const account = '00000000-0000-4000-8000-000000000001';
  const batch = 1_000;
  for (let i = 0; i < ENTRIES; i += batch) {
    const puts: Promise<boolean>[] = [];
    for (let j = i; j < Math.min(ENTRIES, i + batch); j++)
      puts.push(store.put(account, 'bench-key', `d${j.toString(36).padStart(42, '0')}`, value, 3600));
    await Promise.all(puts);
  }
  const growth = (await usedMemory()) - before;
  const entryBytes = entryCost(value.length, keys.cacheEntry(account, `d${'0'.repeat(42)}`).length);
  await store.purgeAccount(account);
  await redis.del(keys.cacheBytes, keys.cacheSizes, keys.cacheExpiries, keys.cacheKey('bench-key'));
  redis.disconnect();
  return { entries: ENTRIES, valueBytes: value.length, entryBytes, growth, perEntry: growth / ENTRIES };
}

await main();
