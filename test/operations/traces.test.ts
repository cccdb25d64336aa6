import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/http.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { spawnLogged } from '../support/logged-process.js';
import { freePort, spawnApi, type ApiProcess } from '../support/processes.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createVideo,
  startTaskGateway,
  spawnWorker,
  videoBody,
  waitSettled,
  workerEnv,
  writeTaskCatalogFile,
  type TaskGateway,
  type WorkerProcess,
} from '../support/task-gateway.js';

// Real processes (`dist/bin/api.js`, `dist/bin/worker.js`) exporting over OTLP/HTTP to a receiver
// that decodes the official protobuf schema: the spans of a call, GenAI attributes, a client's
// traceparent continued and passed on to the upstream, and job spans linked to their request.
let gw: TaskGateway;
let receiver: OtlpReceiver;
let api: ApiProcess;
let worker: WorkerProcess;
let removeCatalog: () => Promise<void>;

const PROMPT = `secret-prompt-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gw = await startTaskGateway({ workers: false });
  const catalog = await writeTaskCatalogFile(gw.sim.url);
  removeCatalog = catalog.remove;
  const env = {
    ...workerEnv(gw, catalog.file),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
  };
  api = await spawnApi(env);
  worker = await spawnWorker(env);
});

afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await removeCatalog?.();
  await gw?.close();
  await receiver?.close();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

async function spansOfTrace(traceId: string, until: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  await waitUntil(() => until(receiver.spans.filter((s) => s.traceId === traceId)), 20_000);
  return receiver.spans.filter((s) => s.traceId === traceId);
}

describe('traces over OTLP/HTTP', () => {
  it('a chat call: server span continuing the client traceparent, admission, upstream (traceparent passed on) and usage write, GenAI attributes, no prompt text', async () => {
    const { key, keyId } = await gw.account({ balance: 10_000_000 });
    const traceId = hex(16);
    const clientSpan = hex(8);
    const res = await fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${clientSpan}-01`,
      },
      body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: PROMPT }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const sent = gw.sim.stats().lastHeaders?.traceparent as string;

    const spans = await spansOfTrace(traceId, (all) => all.length >= 4);
    const server = spans.find((s) => s.kind === 'SERVER')!;
    expect(server).toBeDefined();
    expect(server.parentSpanId).toBe(clientSpan);
    expect(server.name).toBe('POST /v1/chat/completions');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'sim',
      'gen_ai.request.model': 'gpt-sim',
      'gateway.key.id': keyId,
    });
    expect(server.attributes['gen_ai.response.model']).toEqual(expect.any(String));
    expect(server.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(server.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(server.resource['service.name']).toBe('model-gateway');
    expect(server.resource['deployment.environment']).toBe('test');

    const children = spans.filter((s) => s.parentSpanId === server.spanId);
    const upstream = children.find((s) => s.kind === 'CLIENT')!;
    expect(upstream).toBeDefined();
    expect(upstream.attributes['http.response.status_code']).toBe(200);
    expect(children.map((s) => s.name)).toEqual(
      expect.arrayContaining(['gateway.admission', 'gateway.usage_write', upstream.name]),
    );
    // The upstream was called with the client span's own context: the same trace, its span id.
    expect(sent).toBe(`00-${traceId}-${upstream.spanId}-01`);

    // Never the prompt, nor the key, in what is exported.
    await waitUntil(() => receiver.bodies.length > 0, 20_000);
    for (const body of receiver.bodies) {
      expect(body.includes(PROMPT)).toBe(false);
      expect(body.includes(key)).toBe(false);
    }
  });

  it('a call without traceparent starts a trace of its own; Koa routes are traced too', async () => {
    const before = receiver.spans.length;
    const res = await fetch(`${api.url}/v1/models`, { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    await waitUntil(() => receiver.spans.slice(before).some((s) => s.kind === 'SERVER'), 20_000);
    const server = receiver.spans.slice(before).find((s) => s.kind === 'SERVER')!;
    expect(server.parentSpanId).toBe('');
    expect(server.attributes['http.response.status_code']).toBe(401);
    expect(server.name).toMatch(/^GET \/v1\/models/);
  });

  it('task jobs (submit, poll, mirror, settle) run in spans linked to the request that created the task', async () => {
    const { key } = await gw.account({ balance: 10_000_000 });
    const traceId = hex(16);
    // Created on the traced API process (the test gateway's own API is not traced).
    const created = await createVideo({ ...gw, url: api.url }, key, videoBody(PROMPT), {
      traceparent: `00-${traceId}-${hex(8)}-01`,
    });
    expect(created.status).toBe(200);
    const taskId = (created.json as { id: string }).id;
    expect((await waitSettled(gw, taskId)).status).toBe('succeeded');

    const [server] = await spansOfTrace(traceId, (all) => all.some((s) => s.kind === 'SERVER'));
    const linked = () => receiver.spans.filter((s) => s.links.some((l) => l.spanId === server!.spanId));
    await waitUntil(() => {
      const names = new Set(linked().map((s) => s.name));
      return ['job task-submit', 'job task-poll', 'job task-mirror', 'job task-settle'].every((n) => names.has(n));
    }, 20_000);
    for (const job of linked()) {
      expect(job.kind).toBe('CONSUMER');
      expect(job.parentSpanId).toBe('');
      expect(job.links[0]!.traceId).toBe(traceId);
      expect(job.attributes['messaging.system']).toBe('bullmq');
    }
    // The submit's upstream request is a child of its job span.
    const submit = linked().find((s) => s.name === 'job task-submit')!;
    expect(receiver.spans.some((s) => s.parentSpanId === submit.spanId && s.kind === 'CLIENT')).toBe(true);
  });
});

describe('a collector that is not there', () => {
  it('a wrong endpoint (404 to every export) costs one log line, however many exports fail, and no call fails', async () => {
    let exports = 0;
    const wrong = createServer((req, res) => {
      exports++;
      req.resume();
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => wrong.listen(0, '127.0.0.1', resolve));
    const catalog = await writeTaskCatalogFile(gw.sim.url);
    const logged = await spawnLogged('api', {
      ...workerEnv(gw, catalog.file),
      LOG_LEVEL: 'info',
      ACCESS_LOG: 'false',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${(wrong.address() as AddressInfo).port}/nowhere`,
      OTEL_BSP_SCHEDULE_DELAY: '20',
    });
    try {
      const { key } = await gw.account({ balance: 10_000_000 });
      for (let i = 0; exports < 3; i++) {
        const res = await fetch(`${logged.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: `call ${i}` }] }),
        });
        expect(res.status).toBe(200);
        await res.text();
        if (i > 200) throw new Error('the exporter never tried');
      }
      await waitUntil(() => logged.records().some((r) => r.level === 40), 15_000);
      const warnings = logged.records().filter((r) => (r.level as number) >= 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/tracing: spans could not be exported/);
    } finally {
      await logged.stop();
      await catalog.remove();
      wrong.close();
    }
  });

  it('a collector that is down (nothing listens): calls are answered, one log line', async () => {
    const catalog = await writeTaskCatalogFile(gw.sim.url);
    const logged = await spawnLogged('api', {
      ...workerEnv(gw, catalog.file),
      LOG_LEVEL: 'info',
      ACCESS_LOG: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      OTEL_BSP_SCHEDULE_DELAY: '20',
    });
    try {
      const { key } = await gw.account({ balance: 10_000_000 });
      const res = await fetch(`${logged.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(res.status).toBe(200);
      await res.text();
      // The exporter retries a refused connection with backoff before it gives the batch up (~15 s).
      await waitUntil(() => logged.records().some((r) => r.level === 40), 45_000);
      expect(logged.records().filter((r) => (r.level as number) >= 40)).toHaveLength(1);
    } finally {
      await logged.stop();
      await catalog.remove();
    }
  }, 90_000);
});
