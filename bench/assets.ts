// Asset `complete` on a 20 MiB image (p50 and the API process's RSS growth while it runs) against a
// gateway started as its own processes on the local Postgres and Redis with the local storage
// driver, and the cost of resolving an asset:// reference, measured in this process against the
// same database. `npm run bench:assets`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { resolveAssetReferences } from '../shared/assets/resolve-references.js';
import { loadCatalogOrExit } from '../shared/catalog/load-for-process.js';
import { parseConfig } from '../shared/config.js';
import { buildServices } from '../shared/gateway/build-services.js';
import { authenticate } from '../shared/gateway/pipeline.js';
import { createLogger } from '../shared/log.js';
import { BenchRun } from './lib/bench-run.js';
import { startGateway } from './lib/gateway.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const log = (message: string) => process.stderr.write(`[bench:assets] ${message}\n`);
const run = await BenchRun.start('gw-bench-assets', log);
// No call reaches an upstream here: the chat model only makes the catalog valid.
const gw = await startGateway({
  root,
  tmpDir: run.tmpDir,
  logDir: run.logDir,
  upstreams: { none: 'http://127.0.0.1:9' },
  models: { 'bench-none': 'none' },
  postgresAdminUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
});
run.onEnd(() => gw.close());
const base = gw.url;
const key = gw.authorization.slice('Bearer '.length);
/** The API process's resident memory, from /proc (the API runs apart from this script). */
const apiRss = () =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${gw.api.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

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
  const rss0 = apiRss();
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, apiRss())), 5);
  const t = performance.now();
  const asset = await post(`/v1/assets/uploads/${reserved.upload_id}/complete`);
  times.push(performance.now() - t);
  clearInterval(sampler);
  growth.push((peak - rss0) / 1024 / 1024);
  assetId = asset.id;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

// asset:// resolution alone, in this process, against the gateway's database, Redis and storage.
const config = parseConfig(gw.env);
const services = await buildServices(config, await loadCatalogOrExit(config), createLogger('silent'));
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

await services.close();
await run.end(true);
