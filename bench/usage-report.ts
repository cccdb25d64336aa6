// Usage reports at scale: seeds usage records with COPY (BENCH_USAGE_ROWS, default 2,000,000;
// 120 days, 1,000 keys, 50 models, 0-3 tags of 8), builds the daily and hourly rollups, then times a 93-day
// report for each group_by against the same answer computed from the raw records, a key-usage
// lookup and a logs page. `npm run bench:usage` (its own database, dropped at the end).
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createDb } from '../shared/db/index.js';
import { projectPath } from '../shared/paths.js';
import { migrate } from '../shared/db/migrate.js';
import { usageLogs } from '../shared/db/usage-logs.js';
import { usageReport, usageReportFromRecords, type GroupBy } from '../shared/db/usage-reports.js';
import { keyUsageByModel, recentKeyCalls } from '../shared/db/usage-records.js';

const ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.BENCH_USAGE_ROWS ?? 2_000_000);
const DB_NAME = `gw_bench_usage_${Date.now().toString(36)}`;
const url = new URL(ADMIN);
url.pathname = `/${DB_NAME}`;
const DAY = 86_400_000;
const NOW = Date.now();

async function seed(): Promise<{ userId: string; keyId: string }> {
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO users (email) VALUES ('bench@example.test') RETURNING id`,
  );
  const userId = rows[0]!.id;
  const keys = Array.from({ length: 1_000 }, () => randomUUID());
  const tags = ['team-a', 'team-b', 'team-c', 'feature-x', 'feature-y', 'exp-1', 'exp-2', 'batch'];
  let i = 0;
  let seedState = 42;
  const rand = () => (seedState = (seedState * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff;
  const source = new Readable({
    read() {
      for (let n = 0; n < 2_000 && i < ROWS; n++, i++) {
        const created = new Date(NOW - Math.floor(rand() * 120 * DAY)).toISOString();
        const t = tags.filter(() => rand() < 0.15).slice(0, 3);
        const status = rand() < 0.03 ? 502 : 200;
        const input = Math.floor(rand() * 2_000);
        const output = Math.floor(rand() * 500);
        this.push(
          `r${i}\treq${i}\t${userId}\t${keys[i % 1_000]}\tmodel-${i % 50}\tsim\tchat/completions\t${status}\t${input}\t${output}\t0\t${status === 200 ? input * 2 + output * 8 : 0}\t{${t.join(',')}}\t${created}\n`,
        );
      }
      if (i >= ROWS) this.push(null);
    },
  });
  const started = performance.now();
  await pipeline(
    source,
    client.query(
      copyFrom(
        'COPY usage_records (id, request_id, user_id, api_key_id, model, provider, endpoint, status_code, input_tokens, output_tokens, cached_tokens, charged_micro_usd, tags, created_at) FROM STDIN',
      ),
    ),
  );
  process.stdout.write(`seeded ${ROWS} records in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  const rollups = performance.now();
  // The same backfills as migrations 0012 (daily) and 0025 (hourly, weekly by key); the drain maintains them as records arrive.
  for (const migration of ['0012_usage_partitions.sql', '0025_usage_hourly_rollups.sql']) {
    for (const statement of (await readFile(projectPath('migrations', migration), 'utf8'))
      .split(';')
      .filter((q) => /^\s*INSERT INTO usage_(daily|hourly|weekly)/m.test(q))) {
      await client.query(statement);
    }
  }
  await client.query('ANALYZE');
  process.stdout.write(`rollups built in ${((performance.now() - rollups) / 1000).toFixed(1)} s\n`);
  await client.end();
  return { userId, keyId: keys[7]! };
}

async function p50(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[times.length >> 1]!;
}

await migrate(url.toString());
const { userId, keyId } = await seed();
const db = createDb(url.toString(), 4);
const start = new Date(NOW - 93 * DAY);
const end = new Date(NOW);
const lines = [
  `| measure (${ROWS.toLocaleString('en')} records) | p50 ms | naive p50 ms | × faster |`,
  '|---|---|---|---|',
];
for (const groupBy of ['tag', 'model', 'key', 'day'] as GroupBy[]) {
  const fast = await p50(7, () => usageReport(db, userId, groupBy, start, end));
  const naive = await p50(3, () => usageReportFromRecords(db, userId, groupBy, start, end));
  lines.push(
    `| 93-day report, group_by=${groupBy} | ${fast.toFixed(1)} | ${naive.toFixed(1)} | ${(naive / fast).toFixed(0)}× |`,
  );
}
const lookup = await p50(9, () =>
  Promise.all([keyUsageByModel(db, keyId, new Date(NOW - 30 * DAY)), recentKeyCalls(db, keyId, 20)]),
);
lines.push(`| key usage lookup (30 days by model + 20 latest) | ${lookup.toFixed(1)} | | |`);
const logs = await p50(9, () => usageLogs(db, userId, {}, 100));
lines.push(`| logs page (100 records) | ${logs.toFixed(1)} | | |`);
process.stdout.write(`${lines.join('\n')}\n`);
await db.destroy();
const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
await admin.query(`DROP DATABASE ${pg.escapeIdentifier(DB_NAME)} WITH (FORCE)`);
await admin.end();
