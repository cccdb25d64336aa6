// The routing decision alone, in process: what resolving `model` costs per call for a plain id
// (the path every call takes), `auto:cost`, `auto:latency` and a preset, with route health on,
// against the local Postgres and Redis. `npm run bench:routing` (after `npm run build`).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { buildCatalog } from '../shared/catalog/index.js';
import { createDb } from '../shared/db/index.js';
import { migrate } from '../shared/db/migrate.js';
import { insertPreset } from '../shared/db/presets.js';
import type { ApiKeyContext } from '../shared/keys/api-key.js';
import { UpstreamRegistry } from '../shared/providers/registry.js';
import { AccountHealth } from '../shared/routing/account-health.js';
import { LatencyTracker } from '../shared/routing/latency.js';
import { planModels, routesFor, type RoutingServices } from '../shared/routing/plan.js';
import { chooseTemplate } from '../shared/routing/prompt-template.js';
import { RoutingCache } from '../shared/routing/routing-cache.js';

const DB_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/gw_bench_routing';
const N = Number(process.argv[2] ?? 50_000);

const catalog = buildCatalog({
  providers: [
    {
      id: 'a',
      protocol: 'openai',
      base_url: 'http://127.0.0.1:9/v1',
      accounts: [
        { id: 'x', weight: 3 },
        { id: 'y', weight: 1 },
      ],
    },
    { id: 'b', protocol: 'openai', base_url: 'http://127.0.0.1:9/v1' },
  ],
  models: Array.from({ length: 50 }, (_, i) => ({
    id: `m${i}`,
    endpoints: ['chat/completions'],
    routes: [{ provider: 'a' }, { provider: 'b' }],
    pricing: { input_per_mtok: 1000 + i, output_per_mtok: 2000 + i },
    quality: i,
    auto: true,
  })),
});

await migrate(DB_URL);
const db = createDb(DB_URL, 2);
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `gwbench:${randomBytes(3).toString('hex')}:`;
const user = await db
  .insertInto('users')
  .values({ email: `bench-${randomBytes(4).toString('hex')}@example.test` })
  .returning('id')
  .executeTakeFirstOrThrow();
await insertPreset(db, user.id, 'bench', {
  models: ['m3', 'm7', 'm9'],
  strategy: 'ordered',
  weights: null,
  preferred_providers: null,
});
const latency = new LatencyTracker(redis, prefix);
const services: RoutingServices = {
  catalog,
  upstreams: new UpstreamRegistry(catalog, { connections: 1, headersTimeoutMs: 1000, bodyTimeoutMs: 1000 }),
  health: new AccountHealth(redis, prefix),
  latency,
  cache: new RoutingCache(db),
};
const key = {
  id: '00000000-0000-0000-0000-000000000000',
  userId: user.id,
  name: 'bench',
  groupId: 'default',
} as ApiKeyContext;

async function decide(model: string): Promise<void> {
  const plan = await planModels(services, key, model, 'chat/completions', undefined);
  await chooseTemplate(services, key, { model, sessionId: undefined, varsHeader: undefined, now: Date.now() });
  await routesFor(services, plan.models[0]!, plan.preferences);
}

async function measure(model: string): Promise<{ usPerCall: number; p50us: number }> {
  for (let i = 0; i < 2_000; i++) await decide(model); // warm: caches filled, JIT done
  const samples: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await decide(model);
    if (i % 10 === 0) samples.push(performance.now() - t);
  }
  const cpu = process.cpuUsage(cpu0);
  samples.sort((a, b) => a - b);
  return { usPerCall: (cpu.user + cpu.system) / N, p50us: samples[samples.length >> 1]! * 1000 };
}

const rows: string[] = [];
for (const model of ['m3', 'auto:cost', 'auto:latency', '@preset/bench']) {
  const r = await measure(model);
  rows.push(`| \`${model}\` | ${r.usPerCall.toFixed(2)} | ${r.p50us.toFixed(2)} |`);
}
process.stdout.write(`| model | CPU µs per decision | p50 µs |\n|---|---|---|\n${rows.join('\n')}\n`);
latency.close();
redis.disconnect();
await db.destroy();
