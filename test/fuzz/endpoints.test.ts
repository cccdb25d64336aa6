import { connect } from 'node:net';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../api/routes/index.js';
import { openApiPath, type RouteDoc } from '../../api/routes/route.js';
import { protocolOfPath } from '../../shared/protocols/error-bodies.js';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { drained, expectConsistentLedger, usageRecords } from '../support/money.js';

// Property-based fuzzing of every route of the route list (api/routes: a new route is fuzzed once
// it is declared), NUL bytes and mixed-case paths included. Invariants: never a 5xx, never a hang,
// every error in its surface's format, no console state changed from another site, nothing charged
// for a refused call, the ledger still reconciles. `npm test` runs FUZZ_RUNS cases
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

const FIELDS = [
  'model',
  'messages',
  'content',
  'stream',
  'max_tokens',
  'n',
  'size',
  'duration',
  'resolution',
  'endpoint',
  'payload',
  'name',
  'tags',
  'slug',
  'models',
  'versions',
  'key_ids',
  'identifier',
  'password',
  'provider',
  'stream_options',
  'tools',
];

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
// NUL: Postgres refuses it in text and jsonb. Bodies valid but for a NUL, so they reach as far as
// a route goes: every route with a body gets each of them, every other route each query below.
const NUL_BODIES = [
  '{"name":"a\\u0000b"}',
  '{"name":"ok","tags":["\\u0000"]}',
  '{"nickname":"a\\u0000b"}',
  '{"slug":"a\\u0000","models":["gpt-sim"]}',
  '{"request_id":"req\\u0000","name":"q","value":1,"comment":"\\u0000"}',
  '{"model":"gpt-sim","messages":[{"role":"user","content":"a\\u0000b"}],"metadata":{"k\\u0000":"\\u0000"}}',
  '{"model":"vid-sim","content":[{"type":"text","text":"a\\u0000b"}]}',
  '{"clientRequestId":"fuzz-nul","model":"gpt-sim","input":{"messages":[{"role":"user","content":"\\u0000"}],"max_tokens":2}}',
  '{"model\\u0000":"gpt-sim","a\\u0000":{"\\u0000":[1]}}',
];
const NUL_QUERIES = ['?tag=a%00b&model=%00&session_id=%00', '?cursor=%00&page=%00', '?%00=1'];
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]);

// Strings that often hold a NUL, among ordinary and non-ASCII characters.
const nulString = fc.string({
  unit: fc.oneof(fc.constant('\u0000'), fc.constantFrom('a', ' ', 'é', '😀')),
  maxLength: 12,
});

const body = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .dictionary(
      fc.oneof(fc.constantFrom(...FIELDS), nulString),
      fc.oneof(nulString, fc.array(nulString, { maxLength: 3 })),
      { maxKeys: 6 },
    )
    .map((o) => JSON.stringify(o)),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue(), { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  fc
    .record(
      {
        model: fc.constantFrom('gpt-sim', 'free-sim', 'auto', 'auto:bad', '@preset/x', ''),
        messages: fc.array(fc.record({ role: fc.string(), content: fc.oneof(fc.string(), fc.jsonValue()) }), {
          maxLength: 3,
        }),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  fc.constantFrom(...ADVERSARIAL),
  fc.string({ maxLength: 200 }),
);
const segment = fc.oneof(
  fc.string({ minLength: 1, maxLength: 60 }),
  fc.constantFrom(
    '..',
    '%',
    '%2F',
    '%00',
    'a/b',
    '\u0000',
    'ｆｕｚｚ',
    '00000000-0000-0000-0000-000000000000',
    'gpt-sim:generateContent',
    'gpt-sim:streamGenerateContent',
    'models/gpt-sim:countTokens',
    'gpt-sim:embedContent',
  ),
);
const query = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 12 }), nulString, fc.constantFrom('tag', 'model', 'session_id', 'cursor', 'page')),
  fc.oneof(fc.string({ maxLength: 40 }), nulString, fc.constantFrom('-1', '1e400', '', 'NaN', '101', 'csv', '\u0000')),
  { maxKeys: 4 },
);

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
    expect(json, text).toMatchObject({
      code: status === 404 && json.code === -1 ? -1 : status,
      message: expect.any(String),
      request_id: expect.any(String),
    });
  } else if (protocol === 'console') {
    expect(json, text).toMatchObject({
      code: status,
      error_code: expect.any(String),
      message: expect.any(String),
      request_id: expect.any(String),
    });
  } else if (protocol === 'anthropic') {
    expect(json, text).toMatchObject({
      type: 'error',
      error: { type: expect.any(String), message: expect.any(String), code: expect.any(String) },
    });
  } else if (protocol === 'gemini') {
    expect(json.error, text).toMatchObject({
      code: status,
      message: expect.any(String),
      status: expect.any(String),
      details: [{ reason: expect.any(String) }],
    });
  } else {
    expect(json.error, text).toMatchObject({
      message: expect.any(String),
      type: expect.any(String),
      code: expect.any(String),
    });
  }
}

async function send(
  route: RouteDoc,
  path: string,
  payload: string | Buffer | undefined,
  extraHeaders: Record<string, string> = {},
  checkShape = true,
) {
  const res = await fetch(`${gw.url}${path}`, {
    method: route.method.toUpperCase(),
    headers: {
      ...authFor(route),
      ...(payload !== undefined && { 'content-type': 'application/json' }),
      ...extraHeaders,
    },
    ...(payload !== undefined && { body: payload }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
    redirect: 'manual',
  });
  const text = route.method === 'head' ? '' : await res.text();
  // 501 is the documented answer of a method not built (generateContent's embedContent, say).
  if (res.status !== 501) expect(res.status, `${route.method} ${path}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (checkShape) expectErrorShape(path, res.status, text, res.headers.get('content-type') ?? '');
}

/** The private protocol's key travels in the body: put a valid one into object bodies, so the fuzzing reaches past step 1. */
function withBodyKey(payload: string | undefined): string | undefined {
  try {
    const value: unknown = JSON.parse(payload ?? '');
    if (value && typeof value === 'object' && !Array.isArray(value))
      return JSON.stringify({ ...value, apiKey: privateKey });
  } catch {
    // not JSON: sent as it is
  }
  return payload;
}

// The route list (api/routes) with its paths in the OpenAPI form (`/v1/videos/{id}`).
const documentedRoutes: RouteDoc[] = ROUTES.map((r) => ({ ...r, path: openApiPath(r.path) }));
const fuzzed = documentedRoutes.filter((r) => r.path !== '/admin/queues');

describe('fuzzing every documented route', () => {
  it.each(fuzzed.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
    '%s: bodies, path segments and query strings',
    async (_, route) => {
      const hasBody = hasBodyOf(route);
      await fc.assert(
        fc.asyncProperty(segment, query, hasBody ? body : fc.constant(undefined), async (seg, q, payload) => {
          const search = new URLSearchParams(q).toString();
          await send(
            route,
            `${pathOf(route, seg)}${search ? `?${search}` : ''}`,
            route.auth === 'bodyKey' ? withBodyKey(payload) : payload,
          );
        }),
        { numRuns: RUNS },
      );
      if (hasBody) await send(route, pathOf(route, 'x'), INVALID_UTF8);
      for (const nul of hasBody ? NUL_BODIES : [])
        await send(route, pathOf(route, 'x'), route.auth === 'bodyKey' ? withBodyKey(nul) : nul);
      for (const nul of hasBody ? [] : NUL_QUERIES) await send(route, `${pathOf(route, 'x')}${nul}`, undefined);
    },
  );

  it('headers: oversized, repeated and CR/LF attempts on the raw connection never get a 5xx', async () => {
    const headerValue = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom('a'.repeat(20_000), 'x\r\nInjected: 1', 'x\nSet-Cookie: a=b', 'x\u0000y', '😀'),
      fc.constant('Bearer sk-' + 'A'.repeat(48)),
    );
    const headerName = fc.constantFrom(
      'Authorization',
      'X-Request-Id',
      'X-Service-Tags',
      'Idempotency-Key',
      'Content-Type',
      'X-Session-Id',
      'X-Service-Template-Vars',
      'Content-Length',
      'Transfer-Encoding',
      'X-Forwarded-For',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fuzzed),
        fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }),
        async (route, headers) => {
          const lines = headers.map(([n, v]) => `${n}: ${v}`).join('\r\n');
          const status = await rawRequest(
            `${route.method.toUpperCase()} ${pathOf(route, 'x')} HTTP/1.1\r\nHost: fuzz\r\n${lines}${lines ? '\r\n' : ''}Connection: close\r\n\r\n`,
          );
          if (status !== 501)
            expect(status, `${route.path} ${JSON.stringify(headers).slice(0, 200)}`).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS * 10 },
    );
  });

  it('mixed-case paths on every documented route: never a 5xx, never a hang', async () => {
    // Which error format answers a path in another casing depends on whether anything matched it.
    const cased = fc
      .constantFrom(...fuzzed)
      .chain((route) =>
        fc.tuple(
          fc.constant(route),
          fc.mixedCase(fc.constant(pathOf(route, 'x'))),
          hasBodyOf(route) ? body : fc.constant(undefined),
        ),
      );
    await fc.assert(
      fc.asyncProperty(cased, async ([route, path, payload]) => {
        await send(route, path, route.auth === 'bodyKey' ? withBodyKey(payload) : payload, {}, false);
      }),
      { numRuns: RUNS * 5 },
    );
  });

  it('mixed-case console paths, sent from another site with the session cookie, never change state', async () => {
    const victim = await gw.account();
    const { cookie, token } = await signIn(gw, victim.email);
    const sessionId = (await api(gw, 'GET', '/auth/sessions', { token })).json.data[0].id as string;
    // Bodies that change state on the exact path from the console's own origin (the control below).
    const valid: Record<string, unknown> = {
      'post /api/v1/keys': { name: 'csrf' },
      'patch /api/v1/keys/{id}': { name: 'csrf' },
      'patch /api/v1/auth/me': { nickname: 'csrf' },
      'post /api/v1/auth/login': { identifier: victim.email, password: 'password123' },
      'post /api/v1/auth/sensitive-code': { action: 'close_account' },
      'post /api/v1/presets': { slug: 'csrf', models: ['gpt-sim'] },
      'patch /api/v1/account/settings': { log_content: true },
      'post /api/v1/datasets/exports': {},
    };
    const param = (route: RouteDoc) =>
      route.path.includes('/sessions/') ? sessionId : route.path.includes('/keys/') ? victim.keyId : 'csrf';
    const changing = fuzzed.filter((r) => r.path.startsWith('/api/') && r.method !== 'get' && r.method !== 'head');
    const attack = async (route: RouteDoc, path: string, contentType: string, payload?: string) => {
      const res = await fetch(`${gw.url}${path}`, {
        method: route.method.toUpperCase(),
        headers: { cookie, origin: 'https://evil.example', 'content-type': contentType },
        body: payload ?? JSON.stringify(valid[`${route.method} ${route.path}`] ?? {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'manual',
      });
      const text = await res.text();
      expect(res.status, `${route.method} ${path}: ${text.slice(0, 300)}`).toBeLessThan(500);
    };
    const before = await accountState(victim.userId);

    const titleCase = (p: string) => p.replace(/\/([a-z])/g, (_, c: string) => `/${c.toUpperCase()}`);
    for (const route of changing) {
      const path = route.path.replace(/\{\w+\}/g, param(route));
      await attack(route, path.toUpperCase(), 'application/json');
      await attack(route, titleCase(path), 'text/plain'); // what a cross-site form can send
      await attack(route, path.replace('/api/v1/', '/API/v1/'), 'application/json');
    }
    const fuzzedCasing = fc
      .constantFrom(...changing)
      .chain((route) =>
        fc.tuple(
          fc.constant(route),
          fc.mixedCase(fc.constant(route.path.replace(/\{\w+\}/g, param(route)))),
          fc.constantFrom('application/json', 'text/plain'),
          fc.option(body, { nil: undefined }),
        ),
      );
    await fc.assert(
      fc.asyncProperty(fuzzedCasing, ([route, path, contentType, payload]) =>
        attack(route, path, contentType, payload),
      ),
      { numRuns: RUNS * 2 },
    );
    expect(await accountState(victim.userId)).toEqual(before);

    // The control: the same cookie and body on the exact path from the console's own origin do change state.
    expect((await api(gw, 'POST', '/keys', { cookie, body: valid['post /api/v1/keys'] })).status).toBe(201);
  });

  it('afterwards: the gateway answers, refused calls cost nothing, and the ledger reconciles', async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    await drained(gw, 10_000);
    const refused = (await usageRecords(gw.services.db, account.userId)).filter((r) => r.status_code >= 400);
    expect(refused.every((r) => r.charged_micro_usd === 0)).toBe(true);
    await expectConsistentLedger(gw.services.db, account.userId);
  });
});

const hasBodyOf = (route: RouteDoc) => route.method !== 'get' && route.method !== 'head';

/** Every row of every table that holds the user's id, and the user's own row, as sorted JSON text. */
async function accountState(userId: string): Promise<string[]> {
  const db = gw.services.db;
  const { rows: tables } = await sql<{
    name: string;
  }>`SELECT DISTINCT table_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'user_id'`.execute(
    db,
  );
  const state: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{
      row: string;
    }>`SELECT to_jsonb(t)::text AS row FROM ${sql.table(name)} t WHERE user_id = ${userId}`.execute(db);
    state.push(...rows.map((r) => `${name} ${r.row}`));
  }
  const { rows } = await sql<{
    row: string;
  }>`SELECT to_jsonb(u)::text AS row FROM users u WHERE id = ${userId}`.execute(db);
  return [...state, ...rows.map((r) => `users ${r.row}`)].sort();
}

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
