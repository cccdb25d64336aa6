// `npm run bench:webhooks` (issue 31): what webhook delivery adds between a task's end and its
// receiver. One gateway (API + one worker serving every queue, as deployed by default), the task
// simulator answering at once, a local receiver that verifies every signature with the
// `standardwebhooks` package, and an endpoint subscribed to `video.completed`. Per task: the
// receive time minus the task's end (`tasks.finished_at`, which is also the event's `created_at`),
// split at the delivery's first attempt (`webhook_delivery_attempts.attempted_at`). See bench/README.md.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import pg from 'pg';
import { BenchRun } from './lib/bench-run.js';
import { quantile } from './lib/load.js';
import { startGateway } from './lib/gateway.js';
import { commit, f0, f1, machine, pct, table, verdict } from './lib/md.js';
import { readUrl } from './lib/processes.js';
import { NOISY, num, QuietGuard, startMeter, type MeterResult } from './lib/quiet.js';
import { publishResult } from './lib/results.js';
import { startReceiver } from './lib/webhook-receiver.js';
import { benchVideoCatalog } from './lib/video-catalog.js';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist-bench/bench
const root = path.resolve(here, '..', '..');

const TASKS = num('BENCH_WEBHOOK_TASKS', 1000);
/** Creates per second of the steady phase; the burst phase creates every task at once. */
const RATE = num('BENCH_WEBHOOK_RATE', 50);
const PHASES = (process.env.BENCH_WEBHOOK_PHASES ?? 'steady,burst').split(',');
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const TARGET_P99_MS = 1000;
const PASSWORD = 'bench-password-123';

const log = (message: string) => process.stderr.write(`[bench:webhooks] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const BODY = JSON.stringify({
  model: 'bench-video',
  content: [{ type: 'text', text: 'a red fox running through fresh snow' }],
  duration: 5,
  resolution: '720p',
});

interface Phase {
  name: string;
  tasks: number;
  createS: number;
  /**
   * Per delivered task, ms: end → receiver, and its parts: end → the delivery's job added (the
   * settle step's ledger wait, its commit, the enqueue), added → picked up by the worker, picked up
   * → attempt claimed, attempt → receiver.
   */
  total: number[];
  /** Job added → receiver: the delivery path alone, after the commit that wrote the event. */
  delivery: number[];
  enqueued: number[];
  waited: number[];
  claimed: number[];
  sent: number[];
  duplicates: number;
  missing: number;
  attempts: number;
  meter: MeterResult;
}

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-webhooks', log);
  let succeeded = false;
  let markdown = '';
  try {
    const sim = run.spawn('sim-tasks', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    const configured = await fetch(`${simUrl}/_sim/defaults`, {
      method: 'PUT',
      body: JSON.stringify({ taskQueuedMs: 0, taskRunMs: 0, resultBytes: 1024, latencyMs: 0 }),
      headers: { 'content-type': 'application/json' },
    });
    if (!configured.ok) throw new Error(`could not configure the simulator: ${configured.status}`);

    log('starting the gateway (migrate, user, key, API, one worker on every queue)');
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: {},
      models: {},
      postgresAdminUrl: POSTGRES_ADMIN_URL,
      redisUrl: REDIS_URL,
      catalogExtra: benchVideoCatalog(simUrl),
      // http and loopback endpoints are a development setting, refused with NODE_ENV=production.
      env: {
        NODE_ENV: 'development',
        WEBHOOK_ALLOW_INSECURE_URLS: 'true',
        STORAGE_DRIVER: 'local',
        SHUTDOWN_GRACE_MS: '5000',
      },
    });
    run.onEnd(() => gw.close());

    let secret = '';
    const receiver = await startReceiver(() => secret);
    run.onEnd(() => receiver.close());

    // The bench user signs in to the console API and subscribes one endpoint to video.completed.
    const consoleCall = async (method: string, route: string, body: unknown, token?: string) => {
      const res = await fetch(`${gw.url}/api/v1${route}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: Record<string, string> };
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const session = await consoleCall('POST', '/auth/login', { identifier: gw.email, password: PASSWORD });
    const endpoint = await consoleCall(
      'POST',
      '/webhooks',
      { url: receiver.url, events: ['video.completed'] },
      session.token,
    );
    secret = endpoint.secret!;

    const db = new pg.Client({ connectionString: gw.databaseUrl });
    await db.connect();
    run.onEnd(() => db.end());
    const redisPid = Number(/process_id:(\d+)/.exec(await gw.redis.info('server'))?.[1]);
    const roles = async () => ({
      api: [gw.api.pid],
      worker: [gw.worker.pid],
      redis: [redisPid],
      postgres: await gw.postgresBackends(),
      sim: [sim.pid],
    });
    const quiet = new QuietGuard({
      busy: 0.15,
      waitS: num('BENCH_QUIET_WAIT_S', 20),
      budgetS: num('BENCH_QUIET_BUDGET_S', 60),
      log,
    });
    const redisUrl = new URL(REDIS_URL);
    const webhookQueue = new Queue('webhook', {
      connection: { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) },
      prefix: `${gw.redisPrefix}bull`,
    });
    run.onEnd(() => webhookQueue.close());
    const runId = randomBytes(4).toString('hex');
    let seq = 0;
    const createTask = async (): Promise<string> => {
      const res = await fetch(`${gw.url}/v1/videos`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: gw.authorization,
          'idempotency-key': `bench-${runId}-${++seq}`,
        },
        body: BODY,
      });
      const json = (await res.json()) as { id?: string };
      if (!res.ok || !json.id) throw new Error(`POST /v1/videos: ${res.status} ${JSON.stringify(json)}`);
      return json.id;
    };

    const measure = async (name: string, ratePerS: number): Promise<Phase> => {
      await quiet.wait();
      const r = await roles();
      const meter = startMeter(r, [process.pid, ...Object.values(r).flat()]);
      const from = receiver.arrivals.length;
      const started = performance.now();
      const pending: Promise<string>[] = [];
      for (let i = 0; i < TASKS; i++) {
        // Paced creation: each create is sent at its slot (an open loop), not after the previous answer.
        if (ratePerS > 0) {
          const wait = started + (i * 1000) / ratePerS - performance.now();
          if (wait > 0) await sleep(wait);
        }
        pending.push(createTask());
      }
      const ids = await Promise.all(pending);
      const createS = (performance.now() - started) / 1000;
      const mine = new Set(ids);
      const ours = () => receiver.arrivals.slice(from).filter((a) => mine.has(a.taskId));
      const deadline = Date.now() + 120_000;
      while (new Set(ours().map((a) => a.taskId)).size < TASKS && Date.now() < deadline) await sleep(100);
      const meterResult = meter.stop(await roles());
      const arrivals = ours();

      const rows = (
        await db.query<{
          id: string;
          delivery_id: string;
          ended: number;
          first_attempt: number | null;
          attempts: number;
        }>(
          `SELECT t.id, d.id AS delivery_id, extract(epoch FROM t.finished_at) * 1000 AS ended,
                  (SELECT extract(epoch FROM min(a.attempted_at)) * 1000 FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS first_attempt,
                  d.attempts
             FROM tasks t
             JOIN webhook_events e ON e.subject_id = t.id
             JOIN webhook_deliveries d ON d.event_id = e.id
            WHERE t.id = ANY($1)`,
          [ids],
        )
      ).rows;
      const byTask = new Map(rows.map((row) => [row.id, row]));
      const firstArrival = new Map<string, number>();
      for (const a of arrivals) if (!firstArrival.has(a.taskId)) firstArrival.set(a.taskId, a.at);
      const total: number[] = [];
      const delivery: number[] = [];
      const enqueued: number[] = [];
      const waited: number[] = [];
      const claimed: number[] = [];
      const sent: number[] = [];
      for (const [taskId, at] of firstArrival) {
        const row = byTask.get(taskId);
        if (!row) continue;
        const ended = Number(row.ended);
        total.push(at - ended);
        // The first attempt's job (kept an hour once completed: shared/jobs/catalog.ts RETENTION).
        const job = await webhookQueue.getJob(`webhook-${row.delivery_id}-0`);
        if (row.first_attempt === null || !job?.processedOn) continue;
        delivery.push(at - job.timestamp);
        enqueued.push(job.timestamp - ended);
        waited.push(job.processedOn - job.timestamp);
        claimed.push(Number(row.first_attempt) - job.processedOn);
        sent.push(at - Number(row.first_attempt));
      }
      const phase: Phase = {
        name,
        tasks: TASKS,
        createS,
        total,
        delivery,
        enqueued,
        waited,
        claimed,
        sent,
        duplicates: arrivals.length - firstArrival.size,
        missing: TASKS - firstArrival.size,
        attempts: rows.reduce((a, row) => a + Number(row.attempts), 0),
        meter: meterResult,
      };
      const s = summarize(total);
      log(
        `${name}: ${firstArrival.size}/${TASKS} delivered, end → receiver p50 ${f1(s.p50)} p99 ${f1(s.p99)} max ${f1(max(total))} ms; ` +
          `foreign ${pct(meterResult.foreign)}`,
      );
      return phase;
    };

    const phases: Phase[] = [];
    for (const name of PHASES) phases.push(await measure(name, name === 'burst' ? 0 : RATE));
    markdown = render(phases, receiver.refused());
    succeeded = true;
  } finally {
    await run.end(succeeded);
  }
  await publishResult(root, 'webhooks-latest.md', markdown);
}

const max = (v: number[]) => (v.length ? Math.max(...v) : Number.NaN);

function summarize(v: number[]): { p50: number; p95: number; p99: number } {
  const sorted = Float64Array.from(v).sort();
  return { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), p99: quantile(sorted, 0.99) };
}

function render(phases: Phase[], refused: number): string {
  const out: string[] = [];
  out.push('### Results: webhook delivery latency (issue 31)', '');
  out.push('Command: `npm run bench:webhooks`  ');
  out.push(`Date: ${new Date().toISOString()}, commit ${commit(root)}  `);
  out.push(`Machine: ${machine()}  `);
  out.push(
    `Settings: ${TASKS} video tasks per phase (simulator: queued 0 ms, run 0 ms), one API and one worker process on every queue, ` +
      `one endpoint subscribed to \`video.completed\` on a loopback receiver verifying each signature (\`standardwebhooks\`); ` +
      `phases: ${phases.map((p) => (p.name === 'burst' ? 'burst (every task created at once)' : `steady (${RATE} creates/s)`)).join(', ')}`,
    '',
  );
  const rows = phases.map((p) => {
    const t = summarize(p.total);
    const part = (v: number[]) => {
      const s = summarize(v);
      return `${f1(s.p50)} / ${f1(s.p99)}`;
    };
    return [
      p.name,
      `${f0(p.tasks - p.missing)} / ${f0(p.tasks)}`,
      f1(p.createS),
      `${f1(t.p50)} / ${f1(t.p95)} / ${f1(t.p99)} / ${f1(max(p.total))}`,
      `${part(p.delivery)} / ${f1(max(p.delivery))}`,
      part(p.enqueued),
      part(p.waited),
      part(p.claimed),
      part(p.sent),
      `${p.attempts} / ${p.duplicates}`,
      `${pct(p.meter.hostBusy)} / ${pct(p.meter.foreign)}${p.meter.foreign > NOISY ? ' ⚠' : ''}`,
    ];
  });
  out.push(
    table(
      [
        'phase',
        'delivered',
        'created in s',
        'end → receiver ms p50 / p95 / p99 / max',
        'job added → receiver p50 / p99 / max',
        'end → job added',
        'added → picked up',
        'picked up → claimed',
        'claimed → receiver',
        'attempts / duplicates',
        'host busy / foreign',
      ],
      rows,
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
  );
  out.push(
    "The task's end is `tasks.finished_at` (the event's `created_at`, stamped when the settle step starts); the receive time is the",
    "receiver's wall clock once the body has arrived (same host, same clock). **Job added → receiver** is the delivery path alone, once",
    'the commit that wrote the event is done. The parts, p50 / p99 ms each: **end → job added** (the',
    "settle step's wait for its usage record in Postgres, the commit that ends the task and writes the event, the enqueue after it;",
    "BullMQ's job `timestamp`), **added → picked up** (the queue; `processedOn`), **picked up → claimed** (the delivery read and its",
    'attempt claimed in Postgres; `attempted_at`), **claimed → receiver** (signing, the SSRF-safe fetcher, the HTTP request).',
    `Signatures refused by the receiver: ${refused}.`,
    '',
  );
  out.push('#### Target', '');
  out.push(
    table(
      ['target', 'measured', 'result'],
      phases.map((p) => {
        const p99 = summarize(p.total).p99;
        return [
          `${p.name}: webhook delivery adds ≤ 1 s from a task's end to the receiver, p99 over ${f0(p.tasks)} tasks, none lost`,
          `p99 ${f1(p99)} ms (of which after the commit, job added → receiver: p99 ${f1(summarize(p.delivery).p99)} ms), ${p.missing} missing`,
          verdict(p99 <= TARGET_P99_MS && p.missing === 0 && refused === 0),
        ];
      }),
    ),
    '',
  );
  return `${out.join('\n')}\n`;
}

await main();
