import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/http.js';
import { spawnLogged, type LoggedProcess } from '../support/logged-process.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { writeCatalogFile } from '../support/processes.js';

// The standard OTEL_* variables on real API processes exporting to an OTLP/HTTP receiver: the two
// that turn tracing off, an OTLP protocol other than http/protobuf (one line at start, spans still
// exported), and OTEL_PROPAGATORS deciding what an upstream request is given.
let gw: TestGateway;
let receiver: OtlpReceiver;
let catalog: { file: string; remove(): Promise<void> };
const started: LoggedProcess[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gw = await startTestGateway({ sim: { apiKey: 'sim-upstream-secret' } });
  catalog = await writeCatalogFile(gw.sim.url);
});

// One process per test, stopped after it: two busy cores need not carry six idle APIs.
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
});

afterAll(async () => {
  await catalog?.remove();
  await gw?.close();
  await receiver?.close();
});

/** An API process exporting to the receiver, with `env` on top. */
async function api(env: Record<string, string>): Promise<LoggedProcess> {
  const p = await spawnLogged('api', {
    DATABASE_URL: gw.env.DATABASE_URL!,
    REDIS_PREFIX: gw.env.REDIS_PREFIX!,
    CATALOG_FILE: catalog.file,
    ACCESS_LOG: 'false',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    ...env,
  });
  started.push(p);
  return p;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** One chat call with the given headers; what the upstream received. */
async function call(p: LoggedProcess, headers: Record<string, string> = {}) {
  const { key } = await gw.account({ balance: 10_000_000 });
  const res = await fetch(`${p.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: 'hello' }] }),
  });
  expect(res.status).toBe(200);
  await res.text();
  return gw.sim.stats().lastHeaders ?? {};
}

const messages = (p: LoggedProcess) => p.records().map((r) => String(r.msg));

describe('turning tracing off with an endpoint set', () => {
  it.each([
    ['OTEL_SDK_DISABLED', 'true'],
    ['OTEL_TRACES_EXPORTER', 'none'],
  ])(
    '%s=%s: no tracer at all (no span, so no traceparent to the upstream), said once at start',
    async (name, value) => {
      const p = await api({ [name]: value });
      const upstream = await call(p);
      expect(upstream.traceparent).toBeUndefined();
      expect(messages(p)).toContain(`tracing: off (${name}=${value}), although an OTLP endpoint is set`);
      expect(messages(p)).not.toContain('tracing: spans exported over OTLP/HTTP');
    },
  );
});

describe('an OTLP protocol other than http/protobuf', () => {
  it('costs one warn line at start; spans are still exported as http/protobuf', async () => {
    const p = await api({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    const warnings = p.records().filter((r) => (r.level as number) >= 40);
    expect(warnings.map((r) => r.msg)).toEqual([
      'tracing: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; spans are exported as http/protobuf (OTLP/HTTP) to the configured endpoint',
    ]);
    const traceId = hex(16);
    await call(p, { traceparent: `00-${traceId}-${hex(8)}-01` });
    await waitUntil(() => receiver.spans.some((s) => s.traceId === traceId && s.kind === 'SERVER'), 20_000);
  });
});

describe('OTEL_PROPAGATORS', () => {
  const baggage = 'tenant=acme';

  it('unset (tracecontext,baggage): the client trace is continued and its baggage passed on to the upstream', async () => {
    const p = await api({});
    const traceId = hex(16);
    const upstream = await call(p, { traceparent: `00-${traceId}-${hex(8)}-01`, baggage });
    expect(upstream.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(upstream.baggage).toBe(baggage);
  });

  it('tracecontext alone: the trace is continued, the baggage stays here', async () => {
    const p = await api({ OTEL_PROPAGATORS: 'tracecontext' });
    const traceId = hex(16);
    const upstream = await call(p, { traceparent: `00-${traceId}-${hex(8)}-01`, baggage });
    expect(upstream.traceparent).toMatch(new RegExp(`^00-${traceId}-`));
    expect(upstream.baggage).toBeUndefined();
  });

  it('none: the client trace is not continued and nothing is passed on, yet the call is traced', async () => {
    const p = await api({ OTEL_PROPAGATORS: 'none' });
    const traceId = hex(16);
    const before = receiver.spans.length;
    const upstream = await call(p, {
      traceparent: `00-${traceId}-${hex(8)}-01`,
      baggage,
      'x-request-id': 'no-propagation',
    });
    expect(upstream.traceparent).toBeUndefined();
    expect(upstream.baggage).toBeUndefined();
    await waitUntil(
      () =>
        receiver.spans
          .slice(before)
          .some((s) => s.kind === 'SERVER' && s.attributes['http.route'] === '/v1/chat/completions'),
      20_000,
    );
    expect(receiver.spans.some((s) => s.traceId === traceId)).toBe(false);
  });
});
