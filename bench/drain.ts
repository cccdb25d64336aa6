// `npm run bench:drain`: the usage drain's CPU per record in the worker. Queues BENCH_DRAIN_RECORDS
// usage records (default 30,000; as the STEP script's finish queues them: JSON with the charge) in
// Redis, then drains them into a fresh database in batches of USAGE_DRAIN_BATCH (500), in this
// process, and reports the process's CPU (user + system) per record and the records per second.
// Its own database and Redis prefix, dropped at the end. See bench/README.md, "Usage drain".
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createDb } from '../shared/db/index.js';
import { migrate } from '../shared/db/migrate.js';
import { createRedis, connectRedis } from '../shared/redis/client.js';
import { redisKeys } from '../shared/redis/keys.js';
import { defineScripts } from '../shared/lifecycle/redis-scripts.js';
import { drainUsageBatch } from '../shared/usage/drain.js';

const ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RECORDS = Number(process.env.BENCH_DRAIN_RECORDS ?? 30_000);
const BATCH = Number(process.env.USAGE_DRAIN_BATCH ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Rounds run first and not counted: the JIT and the pools warm up. */
const WARMUP = 1;
const DB_NAME = `gw_bench_drain_${Date.now().toString(36)}`;
const url = new URL(ADMIN);
url.pathname = `/${DB_NAME}`;

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  const db = createDb(url.toString(), 4);
  const redis = createRedis({ url: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  defineScripts(redis);
  await connectRedis(redis);
  const keys = redisKeys(`gwbd${Date.now().toString(36)}:`);
  try {
    await migrate(url.toString());
    const user = await db
      .insertInto('users')
      .values({ email: 'drain@example.test', balance_micro_usd: 1e12 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const keyIds = Array.from({ length: 10 }, () => randomUUID());
    const results: { usPerRecord: number; perSecond: number }[] = [];
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const now = Date.now();
      const texts: string[] = [];
      for (let i = 0; i < RECORDS; i++) {
        const event = {
          id: `usage_${round}_${i}_${randomUUID()}`,
          request_id: `req_${round}_${i}`,
          user_id: user.id,
          api_key_id: keyIds[i % keyIds.length],
          model: `model-${i % 5}`,
          provider: 'sim',
          endpoint: 'chat/completions',
          status_code: i % 50 === 0 ? 502 : 200,
          error_code: i % 50 === 0 ? 'upstream_error' : null,
          stream: i % 2 === 0,
          input_tokens: 100 + (i % 900),
          output_tokens: 20 + (i % 300),
          cached_tokens: 0,
          usage_estimated: false,
          tags: i % 3 === 0 ? ['team-a', 'feature\tx'] : [],
          latency_ms: 40 + (i % 100),
          ttft_ms: i % 2 === 0 ? 12 : null,
          upstream_account: 'sim/main',
          template_version_id: null,
          surface: 'chat-completions',
          session_id: i % 7 === 0 ? `session-${i}` : null,
          created_at: new Date(now - i).toISOString(),
          charged_micro_usd: i % 50 === 0 ? 0 : 37 + (i % 11),
        };
        texts.push(JSON.stringify(event));
      }
      for (let i = 0; i < texts.length; i += 1000) await redis.rpush(keys.usageQueue, ...texts.slice(i, i + 1000));
      const cpu = process.cpuUsage();
      const started = performance.now();
      let drained = 0;
      while (drained < RECORDS) drained += await drainUsageBatch(db, redis, keys, 'bench', BATCH);
      const used = process.cpuUsage(cpu);
      const elapsed = (performance.now() - started) / 1000;
      if (round < WARMUP) continue;
      results.push({ usPerRecord: (used.user + used.system) / RECORDS, perSecond: RECORDS / elapsed });
      process.stderr.write(
        `[bench:drain] round ${round + 1 - WARMUP}: ${(results.at(-1)!.usPerRecord).toFixed(1)} µs CPU per record, ${Math.round(results.at(-1)!.perSecond)} records/s\n`,
      );
    }
    const written = await db
      .selectFrom('usage_records')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(written.n) !== RECORDS * (WARMUP + ROUNDS))
      throw new Error(`wrote ${written.n} records, expected ${RECORDS * (WARMUP + ROUNDS)}`);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    process.stdout.write(
      `drain: ${RECORDS} records × ${ROUNDS} rounds (after ${WARMUP} warm-up), batch ${BATCH}: median ${median(results.map((r) => r.usPerRecord)).toFixed(1)} µs worker CPU per record (${results.map((r) => r.usPerRecord.toFixed(1)).join(', ')}), ${Math.round(median(results.map((r) => r.perSecond)))} records/s\n`,
    );
  } finally {
    await db.destroy();
    const stale = await redis.keys(`${keys.usageQueue.slice(0, -'usage:queue'.length)}*`);
    if (stale.length > 0) await redis.del(...stale);
    redis.disconnect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
