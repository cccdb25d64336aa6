import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedRoutes } from '../../api/openapi/routes/index.js';
import type { RouteDoc } from '../../api/openapi/route-doc.js';
import { protocolOfPath } from '../../api/errors/render.js';
import { signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { drained, expectConsistentLedger, usageRecords } from '../support/money.js';

// Property-based fuzzing of every documented route (api/openapi/routes: a new route is fuzzed once
// it is documented). Invariants: never a 5xx, never a hang, every error in its surface's format,
// nothing charged for a refused call, the ledger still reconciles. `npm test` runs FUZZ_RUNS cases
// per route and family (default 40); `npm run fuzz` runs 10,000.
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const TIMEOUT_MS = 10_000;

let gw: TestGateway;
let account: { userId: string; key: string; email: string };
let session: string;
let privateKey: string;

beforeAll(async () => {
  gw = await startTestGateway({ env: { OPERATOR_TOKEN: 'fuzz-operator-token-0123456789' } });
  account = await gw.account({ balance: 5_000_000 });
  session = (await signIn(gw, account.email)).token;
  ({ key: privateKey } = await gw.account({ balance: 5_000_000, key: { kind: 'private' } }));
});
afterAll(async () => {
  await gw?.close();
});

const FIELDS = ['model', 'messages', 'content', 'stream', 'max_tokens', 'n', 'size', 'duration', 'resolution', 'endpoint', 'payload', 'name', 'tags', 'slug', 'models', 'versions', 'key_ids', 'identifier', 'password', 'provider', 'stream_options', 'tools'];

const ADVERSARIAL = [
  '',
  'null',
  '[]',
  '"a string"',
  '{',
  '{"model":',
  '['.repeat(50_000) + ']'.repeat(50_000),
  '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000),
  '{"model":"gpt-sim","messages":[{"role":"user","content":"x"}],"max_tokens":1e999999}',
  '{"max_tokens":123456789012345678901234567890}',
  '{"__proto__":{"polluted":true},"model":"gpt-sim","messages":[{"role":"user","content":"x"}]}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"model":"gpt-sim","model":"other","messages":[]}',
  '{"messages":[{"role":"user","content":"x"}],"model":"gpt-sim","stream":"yes"}',
  '{"model":"\\ud800","messages":[{"role":"\\u0000","content":"\\udfff"}]}',
  '{"model":"gpt-sim","messages":[{"role":"user","content":"x"}],"n":-1,"size":"1x1","duration":-5}',
];
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]);

const body = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue(), { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  fc.record({ model: fc.constantFrom('gpt-sim', 'free-sim', 'auto', 'auto:bad', '@preset/x', ''), messages: fc.array(fc.record({ role: fc.string(), content: fc.oneof(fc.string(), fc.jsonValue()) }), { maxLength: 3 }) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
  fc.constantFrom(...ADVERSARIAL),
  fc.string({ maxLength: 200 }),
);
const segment = fc.oneof(fc.string({ minLength: 1, maxLength: 60 }), fc.constantFrom('..', '%', '%2F', '%00', 'a/b', '\u0000', 'ｆｕｚｚ', '00000000-0000-0000-0000-000000000000', 'gpt-sim:generateContent', 'gpt-sim:streamGenerateContent', 'models/gpt-sim:countTokens', 'gpt-sim:embedContent'));
const query = fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('-1', '1e400', '', 'NaN', '101', 'csv')), { maxKeys: 4 });

function pathOf(route: RouteDoc, seg: string): string {
  return route.path.replace(/\{\w+\}/g, encodeURIComponent(seg));
}

function authFor(route: RouteDoc): Record<string, string> {
  if (route.auth === 'session') return { authorization: `Bearer ${session}` };
  if (route.auth === 'operator') return { authorization: 'Bearer fuzz-operator-token-0123456789' };
  if (route.auth === 'none') return {};
  if (route.auth === 'messagesKey') return { 'x-api-key': account.key };
  if (route.auth === 'contentKey') return { 'x-goog-api-key': account.key };
  if (route.auth === 'bodyKey') return {};
  return { authorization: `Bearer ${account.key}` };
}

/** The surface's error shape: console routes answer the flat envelope, the native surfaces their protocol's, the rest OpenAI's. */
function expectErrorShape(path: string, status: number, text: string, contentType: string): void {
  if (status < 400 || !contentType.includes('json') || text === '') return; // HEAD answers carry no body
  const json = JSON.parse(text) as Record<string, any>;
  const protocol = protocolOfPath(path.split('?')[0]!);
  if (protocol === 'private') {
    // The private envelope; getResult's miss is `{code: -1, message: "task not found"}`.
    expect(json, text).toMatchObject({ code: status === 404 && json.code === -1 ? -1 : status, message: expect.any(String), request_id: expect.any(String) });
  } else if (protocol === 'console') {
    expect(json, text).toMatchObject({ code: status, error_code: expect.any(String), message: expect.any(String), request_id: expect.any(String) });
  } else if (protocol === 'anthropic') {
    expect(json, text).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String), code: expect.any(String) } });
  } else if (protocol === 'gemini') {
    expect(json.error, text).toMatchObject({ code: status, message: expect.any(String), status: expect.any(String), details: [{ reason: expect.any(String) }] });
  } else {
    expect(json.error, text).toMatchObject({ message: expect.any(String), type: expect.any(String), code: expect.any(String) });
  }
}

async function send(route: RouteDoc, path: string, payload: string | Buffer | undefined, extraHeaders: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}${path}`, {
    method: route.method.toUpperCase(),
    headers: { ...authFor(route), ...(payload !== undefined && { 'content-type': 'application/json' }), ...extraHeaders },
    ...(payload !== undefined && { body: payload }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
    redirect: 'manual',
  });
  const text = route.method === 'head' ? '' : await res.text();
  // 501 is the documented answer of a method not built (generateContent's embedContent, say).
  if (res.status !== 501) expect(res.status, `${route.method} ${path}: ${text.slice(0, 300)}`).toBeLessThan(500);
  expectErrorShape(path, res.status, text, res.headers.get('content-type') ?? '');
}

/** The private protocol's key travels in the body: put a valid one into object bodies, so the fuzzing reaches past step 1. */
function withBodyKey(payload: string | undefined): string | undefined {
  try {
    const value: unknown = JSON.parse(payload ?? '');
    if (value && typeof value === 'object' && !Array.isArray(value)) return JSON.stringify({ ...value, apiKey: privateKey });
  } catch {
    // not JSON: sent as it is
  }
  return payload;
}

const fuzzed = documentedRoutes.filter((r) => r.path !== '/admin/queues');

describe('fuzzing every documented route', () => {
  it.each(fuzzed.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))('%s: bodies, path segments and query strings', async (_, route) => {
    const hasBody = route.method !== 'get' && route.method !== 'head';
    await fc.assert(
      fc.asyncProperty(segment, query, hasBody ? body : fc.constant(undefined), async (seg, q, payload) => {
        const search = new URLSearchParams(q).toString();
        await send(route, `${pathOf(route, seg)}${search ? `?${search}` : ''}`, route.auth === 'bodyKey' ? withBodyKey(payload) : payload);
      }),
      { numRuns: RUNS },
    );
    if (hasBody) await send(route, pathOf(route, 'x'), INVALID_UTF8);
  });

  it('headers: oversized, repeated and CR/LF attempts on the raw connection never get a 5xx', async () => {
    const headerValue = fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('a'.repeat(20_000), 'x\r\nInjected: 1', 'x\nSet-Cookie: a=b', 'x\u0000y', '😀'), fc.constant('Bearer sk-' + 'A'.repeat(48)));
    const headerName = fc.constantFrom('Authorization', 'X-Request-Id', 'X-Service-Tags', 'Idempotency-Key', 'Content-Type', 'X-Session-Id', 'X-Service-Template-Vars', 'Content-Length', 'Transfer-Encoding', 'X-Forwarded-For');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fuzzed), fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }), async (route, headers) => {
        const lines = headers.map(([n, v]) => `${n}: ${v}`).join('\r\n');
        const status = await rawRequest(`${route.method.toUpperCase()} ${pathOf(route, 'x')} HTTP/1.1\r\nHost: fuzz\r\n${lines}${lines ? '\r\n' : ''}Connection: close\r\n\r\n`);
        if (status !== 501) expect(status, `${route.path} ${JSON.stringify(headers).slice(0, 200)}`).toBeLessThan(500);
      }),
      { numRuns: RUNS * 10 },
    );
  });

  it('afterwards: the gateway answers, refused calls cost nothing, and the ledger reconciles', async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    await drained(gw, 10_000);
    const refused = (await usageRecords(gw.services.db, account.userId)).filter((r) => r.status_code >= 400);
    expect(refused.every((r) => r.charged_micro_usd === 0)).toBe(true);
    await expectConsistentLedger(gw.services.db, account.userId);
  });
});

/** One request written byte for byte on a socket; resolves with the status (0 when the server just closed it). */
function rawRequest(text: string): Promise<number> {
  const { port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setTimeout(TIMEOUT_MS, () => {
      socket.destroy();
      reject(new Error(`no answer within ${TIMEOUT_MS} ms`));
    });
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.write(Buffer.from(text, 'utf8'));
  });
}
