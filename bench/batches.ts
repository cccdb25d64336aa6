// `npm run bench:batches` (issue 31): a chat batch run by one worker process against the upstream
// simulator, beside the same calls made synchronously by a client at the same concurrency: lines
// per second (target ≥ 0.8× the synchronous calls), the batch worker's RSS growth over the batch
// (target ≤ 64 MiB), and the validation time of the input file (target ≤ 5 s for 50,000 lines).
// See bench/README.md.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchRun } from './lib/bench-run.js';
import { startGateway } from './lib/gateway.js';
import { commit, f0, f1, f2, machine, table, verdict } from './lib/md.js';
import { freePort, readUrl } from './lib/processes.js';
import { num } from './lib/quiet.js';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist-bench/bench
const root = path.resolve(here, '..', '..');

const LINES = num('BENCH_BATCH_LINES', 50_000);
/** Synchronous calls of the baseline (the same request as each line). */
const SYNC_CALLS = num('BENCH_SYNC_CALLS', 10_000);
const CONCURRENCY = num('BENCH_BATCH_CONCURRENCY', 8);
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MIB = 1024 * 1024;

const log = (message: string) => process.stderr.write(`[bench:batches] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const body = (i: number) => ({
  model: 'bench-chat',
  max_tokens: 16,
  messages: [{ role: 'user', content: `Summarise item ${i} in one short sentence please` }],
});

/** The V8 heap in use of a worker, from its /metrics (prom-client's default metrics). */
async function heapUsed(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1] ?? 0) * 1024;
}

interface BatchView {
  status: string;
  created_at: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
}

/** Uploads `lines` lines, creates the batch and polls it to its end (`sample` on each poll). */
async function runBatch(
  url: string,
  headers: Record<string, string>,
  authorization: string,
  lines: number,
  sample: (view: BatchView) => void = () => {},
) {
  const jsonl = Array.from({ length: lines }, (_, i) =>
    JSON.stringify({ custom_id: `line-${i}`, method: 'POST', url: '/v1/chat/completions', body: body(i) }),
  ).join('\n');
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob([jsonl]), 'bench.jsonl');
  const uploadStart = performance.now();
  const file = (await (
    await fetch(`${url}/v1/files`, { method: 'POST', headers: { authorization }, body: form })
  ).json()) as { id: string; bytes: number };
  const uploadS = (performance.now() - uploadStart) / 1000;
  const createdAt = performance.now();
  const created = (await (
    await fetch(`${url}/v1/batches`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    })
  ).json()) as { id: string };
  let validatedAt: number | undefined;
  let batch: BatchView;
  for (;;) {
    batch = (await (await fetch(`${url}/v1/batches/${created.id}`, { headers })).json()) as BatchView;
    sample(batch);
    if (validatedAt === undefined && batch.status !== 'validating') validatedAt = performance.now();
    if (['completed', 'failed', 'expired', 'cancelled'].includes(batch.status)) break;
    await sleep(validatedAt === undefined ? 50 : 200);
  }
  const endedAt = performance.now();
  return {
    batch,
    uploadS,
    bytes: file.bytes,
    validationS: ((validatedAt ?? endedAt) - createdAt) / 1000,
    runS: (endedAt - (validatedAt ?? endedAt)) / 1000,
  };
}

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-batches', log);
  let succeeded = false;
  try {
    const sim = run.spawn('sim', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    log('starting the gateway (migrate, user, key, API, usage worker)');
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { sim: simUrl },
      models: { 'bench-chat': 'sim' },
      postgresAdminUrl: POSTGRES_ADMIN_URL,
      redisUrl: REDIS_URL,
      env: { BATCH_CONCURRENCY: String(CONCURRENCY) },
      // The gateway's own worker drains usage and sweeps; the batch runs on a worker of its own.
      workerEnv: { WORKER_QUEUES: 'usage,maintenance' },
    });
    run.onEnd(() => gw.close());
    const headers = { authorization: gw.authorization, 'content-type': 'application/json' };

    // (a) The same calls, synchronously, by a client at the same concurrency.
    log(`synchronous baseline: ${SYNC_CALLS} calls at concurrency ${CONCURRENCY}`);
    let next = 0;
    let syncFailed = 0;
    const syncStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < SYNC_CALLS) {
          const i = next++;
          const res = await fetch(`${gw.url}/v1/chat/completions`, {
            method: 'POST',
            headers,
            body: JSON.stringify(body(i)),
          });
          await res.arrayBuffer();
          if (res.status !== 200) syncFailed++;
        }
      }),
    );
    const syncS = (performance.now() - syncStart) / 1000;
    const syncPerS = SYNC_CALLS / syncS;
    log(`synchronous: ${f1(syncPerS)} calls/s`);
    await gw.usageDrained(60_000);

    // (b) The batch: uploaded, validated and run by one worker process.
    const metricsPort = await freePort();
    const worker = gw.spawnWorker('batch-worker', {
      WORKER_QUEUES: 'batch',
      WORKER_METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
      // BENCH_WORKER_NODE_OPTIONS: V8 flags for the batch worker only (e.g. `--max-semi-space-size=64`).
      ...(process.env.BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS } : {}),
      // BENCH_WORKER_ENV: `NAME=value,...` for the batch worker only (e.g. `ADMISSION_GRANTS=false`).
      ...Object.fromEntries(
        (process.env.BENCH_WORKER_ENV ?? '')
          .split(',')
          .filter((pair) => pair.includes('='))
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      ),
    });
    // A first small batch warms the worker (modules, tokenizer, JIT, pools): RSS growth is measured over the big one.
    await sleep(3_000);
    const rssCold = rssOf(worker.pid);
    const warm = await runBatch(gw.url, headers, gw.authorization, 200);
    log(`warm-up batch ${warm.batch.status}`);
    const rssBefore = rssOf(worker.pid);
    let rssPeak = rssBefore;
    // RSS and the V8 heap in use (the worker's /metrics) as the lines complete: a leak climbs with the lines, GC slack does not.
    const series: { lines: number; rss: number; heap: number }[] = [];
    let lastSample = 0;
    const measured = await runBatch(gw.url, headers, gw.authorization, LINES, (view) => {
      const rss = rssOf(worker.pid);
      rssPeak = Math.max(rssPeak, rss);
      if (performance.now() - lastSample < 5_000) return;
      lastSample = performance.now();
      void heapUsed(metricsPort).then((heap) => series.push({ lines: view.request_counts.completed, rss, heap }));
    });
    const { batch, validationS, runS, uploadS, bytes } = measured;
    // What the batch left behind: the worker's RSS once idle again (V8 shrinks its heap after a quiet spell).
    await sleep(10_000);
    const rssAfter = rssOf(worker.pid);
    const heapAfter = await heapUsed(metricsPort);
    const batchPerS = batch.request_counts.completed / runS;
    const ratio = batchPerS / syncPerS;
    const growthMiB = (rssPeak - rssBefore) / MIB;
    log(`batch ${batch.status}: ${f1(batchPerS)} lines/s, validation ${f2(validationS)} s, RSS +${f1(growthMiB)} MiB`);

    const markdown = [
      `### Batches (${new Date().toISOString().slice(0, 10)}, ${commit(root)}, ${machine()})`,
      '',
      `One batch of ${f0(LINES)} chat lines (\`max_tokens: 16\`, an instant simulator) run by one worker process at`,
      `BATCH_CONCURRENCY=${CONCURRENCY}, beside ${f0(SYNC_CALLS)} of the same calls made synchronously by one client at`,
      `concurrency ${CONCURRENCY}. Lines per second: completed lines over the time from \`in_progress\` to the end`,
      '(finalization included: the output file written). Validation: from `POST /v1/batches` to `in_progress`',
      `(the file streamed from object storage, every line checked and stored). RSS: the batch worker's peak over`,
      'the batch less its RSS before it.',
      '',
      table(
        ['measure', 'value', 'target', ''],
        [
          [
            'synchronous calls/s (client, same concurrency)',
            f1(syncPerS),
            '',
            syncFailed ? `${syncFailed} failed` : '',
          ],
          ['batch lines/s (one worker)', f1(batchPerS), '', `${batch.request_counts.failed} failed`],
          ['ratio batch / synchronous', f2(ratio), '≥ 0.80', verdict(ratio >= 0.8)],
          [
            'batch worker RSS growth over the batch (after a 200-line warm-up), MiB',
            f1(growthMiB),
            '≤ 64',
            verdict(growthMiB <= 64),
          ],
          [
            'batch worker RSS retained 10 s after the batch, MiB',
            f1((rssAfter - rssBefore) / MIB),
            '',
            `heap in use then: ${f1(heapAfter / MIB)} MiB`,
          ],
          [
            'batch worker RSS from its start to the peak, MiB',
            f1((rssPeak - rssCold) / MIB),
            '',
            'one-time: modules, tokenizer, pools',
          ],
          [`validation of ${f0(LINES)} lines, s`, f2(validationS), '≤ 5', verdict(validationS <= 5)],
          ['upload of the file, s', f2(uploadS), '', `${f1(bytes / MIB)} MiB`],
        ],
        ['l', 'r', 'r', 'l'],
      ),
      '',
      'RSS and V8 heap in use of the batch worker as the lines complete (sampled every 5 s):',
      '',
      table(
        ['lines completed', 'RSS, MiB', 'heap used, MiB'],
        series
          .filter((_, i) => i % Math.max(1, Math.ceil(series.length / 12)) === 0 || i === series.length - 1)
          .map((p) => [f0(p.lines), f1(p.rss / MIB), f1(p.heap / MIB)]),
        ['r', 'r', 'r'],
      ),
      '',
    ].join('\n');
    const resultsDir = process.env.BENCH_RESULTS_DIR
      ? path.resolve(process.env.BENCH_RESULTS_DIR)
      : path.join(root, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, 'batches.md'), markdown);
    process.stdout.write(markdown);
    succeeded = batch.status === 'completed';
  } finally {
    await run.end(succeeded);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
