import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobId } from '../../shared/jobs/catalog.js';
import { batchCatalog, chatLine, openAi, uploadLines, waitBatchEnd } from '../batches/support.js';
import { waitUntil } from '../support/http.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { spawnApi, writeCatalogFile, type ApiProcess } from '../support/processes.js';
import {
  createVideo,
  spawnWorker,
  startTaskGateway,
  taskRow,
  videoBody,
  waitSettled,
  workerEnv,
  type TaskGateway,
  type WorkerProcess,
} from '../support/task-gateway.js';
import { createEndpoint, owner, startReceiver, type Receiver } from '../webhooks/support.js';

// The spans of background work, from real API and worker processes exporting over OTLP/HTTP:
// a batch's lines each in a span of its own under the batch job's, a webhook delivery linked to
// the request that created the task it announces, and a job enqueued again from Postgres (the
// Redis-loss watcher) keeping the link the lost job had.
let gw: TaskGateway;
let otlp: OtlpReceiver;
let hooks: Receiver;
let api: ApiProcess;
let worker: WorkerProcess;
let env: Record<string, string>;
let removeCatalog: () => Promise<void>;

const QUEUES = 'task-submit,task-poll,task-mirror,task-settle,webhook,batch,maintenance';

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  hooks = await startReceiver();
  // The in-process gateway (untraced) makes accounts and webhook endpoints; its workers stay off.
  gw = await startTaskGateway({
    workers: false,
    catalog: batchCatalog,
    env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true', BATCH_CONCURRENCY: '2' },
  });
  const catalog = await writeCatalogFile(gw.sim.url, batchCatalog);
  removeCatalog = catalog.remove;
  env = {
    ...workerEnv(gw, catalog.file),
    WEBHOOK_ALLOW_INSECURE_URLS: 'true',
    BATCH_CONCURRENCY: '2',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
  api = await spawnApi(env);
  worker = await spawnWorker(env, QUEUES);
});

afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await removeCatalog?.();
  await gw?.close();
  await hooks?.close();
  await otlp?.close();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const traceparent = (traceId: string) => `00-${traceId}-${hex(8)}-01`;

/** The server span of the one request sent with this trace id (once exported). */
async function serverSpanOf(traceId: string): Promise<ReceivedSpan> {
  await waitUntil(() => otlp.spans.some((s) => s.traceId === traceId && s.kind === 'SERVER'), 20_000);
  return otlp.spans.find((s) => s.traceId === traceId && s.kind === 'SERVER')!;
}

const linkedTo = (span: ReceivedSpan, name: string) =>
  otlp.spans.filter((s) => s.name === name && s.links.some((l) => l.spanId === span.spanId));

describe('batch lines', () => {
  it('each line runs in a span of its own, a child of the batch job span (linked to the request), with its gen_ai attributes', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const client = openAi({ ...gw, url: api.url }, acct.key);
    const texts = ['first line', 'the second line is longer', 'three'];
    const file = await uploadLines(
      client,
      texts.map((t, i) => chatLine(`line-${i}`, t)),
    );
    const traceId = hex(16);
    const batch = await client.batches.create(
      { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: { traceparent: traceparent(traceId) } },
    );
    expect((await waitBatchEnd(client, batch.id)).status).toBe('completed');

    const server = await serverSpanOf(traceId);
    expect(server.name).toBe('POST /v1/batches');
    const lineSpans = () => {
      const jobs = new Set(linkedTo(server, 'job batch').map((s) => s.spanId));
      return otlp.spans.filter((s) => s.name === 'batch line' && jobs.has(s.parentSpanId));
    };
    await waitUntil(() => lineSpans().length === texts.length, 20_000);
    const lines = lineSpans().sort(
      (a, b) => Number(a.attributes['gateway.batch.line']) - Number(b.attributes['gateway.batch.line']),
    );
    expect(lines.map((s) => s.attributes['gateway.batch.line'])).toEqual([1, 2, 3]);
    for (const line of lines) {
      expect(line.kind).toBe('INTERNAL');
      expect(line.attributes).toMatchObject({
        'gateway.batch.id': batch.id,
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-sim',
        'gen_ai.provider.name': 'sim',
        'gateway.key.id': acct.keyId,
      });
      expect(line.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      // The line's upstream request is its child, not the job's.
      expect(otlp.spans.some((s) => s.parentSpanId === line.spanId && s.kind === 'CLIENT')).toBe(true);
    }
    // Each line counted its own prompt: the longer line's input tokens are more.
    const inputs = lines.map((s) => s.attributes['gen_ai.usage.input_tokens'] as number);
    expect(inputs[1]).toBeGreaterThan(inputs[2]!);
    // The job span itself carries no line's attributes (they used to overwrite each other there).
    for (const job of linkedTo(server, 'job batch')) {
      expect(Object.keys(job.attributes).filter((k) => k.startsWith('gen_ai.'))).toEqual([]);
    }
  });
});

describe('webhook deliveries', () => {
  it("a delivery's job span links to the request that created the task whose end it announces", async () => {
    const acct = await owner(gw);
    const endpoint = await createEndpoint(gw, acct.token, {
      url: `${hooks.origin}/traced`,
      events: ['video.completed'],
    });
    expect(endpoint.status).toBe(201);
    const traceId = hex(16);
    const created = await createVideo({ ...gw, url: api.url }, acct.key, videoBody('a traced webhook'), {
      traceparent: traceparent(traceId),
    });
    expect(created.status).toBe(200);
    const taskId = (created.json as { id: string }).id;
    const [delivery] = await hooks.waitFor(1, (r) => r.path === '/traced' && r.body.includes(taskId), 30_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'video.completed', data: { id: taskId } });

    const server = await serverSpanOf(traceId);
    await waitUntil(() => linkedTo(server, 'job webhook').length > 0, 20_000);
    const [job] = linkedTo(server, 'job webhook');
    expect(job).toMatchObject({ kind: 'CONSUMER', parentSpanId: '' });
    expect(job!.attributes['messaging.destination.name']).toBe('webhook');
    expect(job!.links[0]!.traceId).toBe(traceId);
  });
});

describe('a job enqueued again from Postgres', () => {
  it('keeps the link to the request that created its task (the Redis-loss watcher re-drives it)', async () => {
    await worker.stop();
    const { key } = await gw.account({ balance: 10_000_000 });
    const traceId = hex(16);
    const created = await createVideo({ ...gw, url: api.url }, key, videoBody('lost and found'), {
      traceparent: traceparent(traceId),
    });
    expect(created.status).toBe(200);
    const taskId = (created.json as { id: string }).id;
    expect((await taskRow(gw, taskId))?.trace_context?.traceparent).toMatch(new RegExp(`^00-${traceId}-`));
    // Redis loses the job (and the marker the workers watch): only Postgres knows of the task now.
    const lost = await gw.services.jobs.queues.get('task-submit')!.getJob(jobId('task-submit', taskId));
    expect(lost).toBeDefined();
    await lost!.remove();
    await gw.services.redis.del(`${gw.env.REDIS_PREFIX}alive`);

    worker = await spawnWorker(env, QUEUES);
    expect((await waitSettled(gw, taskId, 30_000)).status).toBe('succeeded');
    const server = await serverSpanOf(traceId);
    await waitUntil(() => linkedTo(server, 'job task-submit').length > 0, 20_000);
    const [submit] = linkedTo(server, 'job task-submit');
    expect(submit!.links[0]!.traceId).toBe(traceId);
    // And the jobs it enqueued in turn carry the same origin.
    await waitUntil(() => linkedTo(server, 'job task-settle').length > 0, 20_000);
  });
});
