// Asset `complete` on a 20 MiB image (p50 and RSS growth while it runs) and the cost of resolving
// an asset:// reference, against a gateway built in process on the local Postgres and Redis with
// the local storage driver. `npm run bench:assets`.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { createRequestListener } from '../api/app.js';
import { createUser } from '../shared/accounts/create-user.js';
import { resolveAssetReferences } from '../shared/assets/resolve-references.js';
import { buildCatalog } from '../shared/catalog/index.js';
import { parseConfig } from '../shared/config.js';
import { migrate } from '../shared/db/migrate.js';
import { buildServices } from '../shared/gateway/build-services.js';
import { authenticate } from '../shared/gateway/pipeline.js';
import { createKey } from '../shared/keys/manage-keys.js';
import { createLogger } from '../shared/log.js';
import { demoCatalog } from '../tools/demo/catalog.js';

const ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `gw_bench_assets_${Date.now().toString(36)}`;
const dbUrl = new URL(ADMIN);
dbUrl.pathname = `/${name}`;
const dataDir = await mkdtemp(path.join(tmpdir(), 'gw-bench-assets-'));
await migrate(dbUrl.toString());
const config = parseConfig({
  DATABASE_URL: dbUrl.toString(),
  REDIS_PREFIX: `gwb:${randomBytes(3).toString('hex')}:`,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
});
const services = await buildServices(config, buildCatalog(demoCatalog('http://127.0.0.1:9')), createLogger('silent'));
const server = createServer(createRequestListener(services)).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const user = await createUser(services.db, `bench-${randomBytes(3).toString('hex')}@example.test`, 'password123');
const { key } = await createKey(
  { db: services.db, redis: services.redis, channel: services.redisKeys.keyInvalidation, catalog: services.catalog },
  user.id,
  {},
);

const image = await sharp({
  create: {
    width: 2_600,
    height: 2_700,
    channels: 3,
    background: '#000',
    noise: { type: 'gaussian', mean: 128, sigma: 60 },
  },
})
  .png({ compressionLevel: 0 })
  .toBuffer();
const post = (p: string, body?: unknown) =>
  fetch(`${base}${p}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).then((r) => r.json() as Promise<Record<string, any>>);

const times: number[] = [];
const growth: number[] = [];
let assetId = '';
for (let i = 0; i < 7; i++) {
  const reserved = await post('/v1/assets', {
    filename: 'big.png',
    content_type: 'image/png',
    size_bytes: image.length,
  });
  await fetch(reserved.upload_url, { method: 'PUT', headers: reserved.headers, body: image });
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t = performance.now();
  const asset = await post(`/v1/assets/uploads/${reserved.upload_id}/complete`);
  times.push(performance.now() - t);
  clearInterval(sampler);
  growth.push((peak - rss0) / 1024 / 1024);
  assetId = asset.id;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const keyContext = await authenticate(services, { secret: key, ip: '127.0.0.1' });
const ctx = {
  db: services.db,
  storage: services.storage,
  linkSecret: services.linkSecret,
  baseUrl: base,
  ttlMs: 3_600_000,
  now: Date.now(),
};
const without = {
  content: [
    { type: 'text', text: 'x' },
    { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
  ],
};
const withRef = {
  content: [
    { type: 'text', text: 'x' },
    { type: 'image_url', image_url: { url: `asset://${assetId}` } },
  ],
};
const resolveTimes: number[] = [];
for (let i = 0; i < 500; i++) {
  const t0 = performance.now();
  await resolveAssetReferences(ctx, keyContext, without);
  const t1 = performance.now();
  await resolveAssetReferences(ctx, keyContext, withRef);
  resolveTimes.push(performance.now() - t1 - (t1 - t0));
}
process.stdout.write(
  `| measure | p50 |\n|---|---|\n| complete, ${(image.length / 1024 / 1024).toFixed(1)} MiB PNG (7 runs) | ${median(times).toFixed(0)} ms |\n| RSS growth during complete | ${median(growth).toFixed(1)} MiB (max ${Math.max(...growth).toFixed(1)}) |\n| asset:// resolution, per reference | ${median(resolveTimes).toFixed(2)} ms |\n`,
);

server.close();
await services.close();
await rm(dataDir, { recursive: true, force: true });
const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
await admin.query(`DROP DATABASE ${pg.escapeIdentifier(name)} WITH (FORCE)`);
await admin.end();
