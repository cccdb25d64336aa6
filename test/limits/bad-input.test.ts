import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { errorOf, type Json } from '../support/limits.js';
import { usageRecords } from '../support/money.js';
import { cliInProcess } from '../support/cli-in-process.js';
import type { CliResult } from '../support/processes.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

async function consoleCall(
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${gw.url}/api/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function signedIn() {
  const acct = await gw.account({ balance: 1_000_000 });
  const login = await consoleCall('POST', '/auth/login', undefined, {
    identifier: acct.email,
    password: 'password123',
  });
  expect(login.status, JSON.stringify(login.json)).toBe(200);
  return { ...acct, token: login.json.data.token as string };
}

const LIMITS = ['rpm_limit', 'tpm_limit', 'concurrency_limit'] as const;
const CAPS = ['total_micro_usd', 'daily_micro_usd', 'monthly_micro_usd'] as const;
// Negative, fractional, absurd (over 10^9 for a limit, 10^15 for a cap, or past 2^53) and not a number.
const BAD_LIMITS = [-1, 1.5, 1_000_000_001, 2 ** 53 + 2, '5', true, {}];
const BAD_CAPS = [-1, 0.5, 1e15 + 1, 1e300, '100', false];

function expectFieldError(reply: { status: number; json: Json }, field: string) {
  expect(reply.status, JSON.stringify(reply.json)).toBe(400);
  expect(reply.json.error_code).toBe('invalid_request');
  expect(reply.json.message).toContain(`'${field}'`);
}

describe('limits and caps in the console', () => {
  it('POST /api/v1/keys refuses negative, fractional and absurd limits and caps, naming the field, and creates nothing', async () => {
    const s = await signedIn();
    const before = await consoleCall('GET', '/keys', s.token);
    for (const field of LIMITS)
      for (const bad of BAD_LIMITS)
        expectFieldError(await consoleCall('POST', '/keys', s.token, { [field]: bad }), field);
    for (const field of CAPS)
      for (const bad of BAD_CAPS)
        expectFieldError(await consoleCall('POST', '/keys', s.token, { [field]: bad }), field);
    // A number too large for JSON doubles parses as Infinity: still a 400 naming the field.
    expectFieldError(await consoleCall('POST', '/keys', s.token, '{"rpm_limit": 1e400}'), 'rpm_limit');
    const after = await consoleCall('GET', '/keys', s.token);
    expect(after.json.total).toBe(before.json.total);

    // The edges are accepted: 0, the maxima, and null (no limit).
    const edge = await consoleCall('POST', '/keys', s.token, {
      rpm_limit: 0,
      tpm_limit: 1_000_000_000,
      concurrency_limit: null,
      total_micro_usd: 1e15,
      daily_micro_usd: 0,
    });
    expect(edge.status, JSON.stringify(edge.json)).toBe(201);
    expect(edge.json.data).toMatchObject({
      rpm_limit: 0,
      tpm_limit: 1_000_000_000,
      concurrency_limit: null,
      total_micro_usd: 1e15,
      daily_micro_usd: 0,
    });
  });

  it('PATCH /api/v1/keys/{id} refuses them too and leaves the key as it was', async () => {
    const s = await signedIn();
    const created = await consoleCall('POST', '/keys', s.token, { rpm_limit: 10, total_micro_usd: 5000 });
    expect(created.status).toBe(201);
    const id = created.json.data.id as string;
    for (const field of LIMITS)
      for (const bad of BAD_LIMITS)
        expectFieldError(await consoleCall('PATCH', `/keys/${id}`, s.token, { [field]: bad }), field);
    for (const field of CAPS)
      for (const bad of BAD_CAPS)
        expectFieldError(await consoleCall('PATCH', `/keys/${id}`, s.token, { [field]: bad }), field);
    // One bad field spoils the whole update.
    expectFieldError(
      await consoleCall('PATCH', `/keys/${id}`, s.token, { rpm_limit: 20, daily_micro_usd: -3 }),
      'daily_micro_usd',
    );
    const got = await consoleCall('GET', `/keys/${id}`, s.token);
    expect(got.json.data).toMatchObject({
      rpm_limit: 10,
      tpm_limit: null,
      total_micro_usd: 5000,
      daily_micro_usd: null,
    });
  });

  it('a zero limit admits nothing; a zero cap admits nothing that costs money', async () => {
    const s = await signedIn();
    const zeroRpm = await consoleCall('POST', '/keys', s.token, { rpm_limit: 0 });
    const zeroConc = await consoleCall('POST', '/keys', s.token, { concurrency_limit: 0 });
    const zeroCap = await consoleCall('POST', '/keys', s.token, { total_micro_usd: 0 });
    for (const k of [zeroRpm, zeroConc]) {
      const r = await postChat(gw.url, k.json.data.key, chatRequest('gpt-sim', 'x', { max_tokens: 1 }));
      expect(r.status, r.text).toBe(429);
      expect(errorOf(r).code).toBe('rate_limit_exceeded');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const capped = await postChat(gw.url, zeroCap.json.data.key, chatRequest('gpt-sim', 'x', { max_tokens: 1 }));
    expect(capped.status).toBe(429);
    expect(errorOf(capped).code).toBe('quota_exceeded');
    const free = await postChat(gw.url, zeroCap.json.data.key, chatRequest('free-sim', 'x', { max_tokens: 1 }));
    expect(free.status).toBe(200);
  });
});

describe('limits in the CLI', () => {
  it('user:limits and key:create refuse negative, fractional and absurd values with a non-zero exit naming the flag, changing nothing', async () => {
    const acct = await gw.account();
    const cases: [string[], RegExp][] = [
      [['user:limits', '--email', acct.email, '--rpm', '-1'], /rpm/],
      [['user:limits', '--email', acct.email, '--tpm', '1.5'], /tpm/],
      [['user:limits', '--email', acct.email, '--concurrency', '1000000001'], /concurrency/],
      [['user:limits', '--email', acct.email, '--rpm', 'lots'], /rpm/],
      [['key:create', '--email', acct.email, '--rpm', '-5'], /rpm/],
      [['key:create', '--email', acct.email, '--total-micro-usd', '2.5'], /total-micro-usd|total_micro_usd/],
      [['key:create', '--email', acct.email, '--daily-micro-usd', '-1'], /daily/],
    ];
    // One after another: each run captures this process's stdout and stderr.
    const results: CliResult[] = [];
    for (const [args] of cases) results.push(await cliInProcess(args, gw.env));
    results.forEach((r, i) => {
      const [args, field] = cases[i]!;
      expect(r.code, `${args.join(' ')}: ${r.stdout}`).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(/^error: /);
      expect(r.stderr, args.join(' ')).toMatch(field);
    });
    const user = await gw.services.db
      .selectFrom('users')
      .select(['rpm_limit', 'tpm_limit', 'concurrency_limit'])
      .where('id', '=', acct.userId)
      .executeTakeFirstOrThrow();
    expect(user).toEqual({ rpm_limit: null, tpm_limit: null, concurrency_limit: null });
    const keys = await gw.services.db.selectFrom('api_keys').select('id').where('user_id', '=', acct.userId).execute();
    expect(keys).toHaveLength(1); // only the one gw.account made
  });
});

describe('max_tokens', () => {
  it('a malformed max_tokens or max_completion_tokens answers 400 naming it, and calls no upstream', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    gw.sim.resetStats();
    for (const field of ['max_tokens', 'max_completion_tokens']) {
      for (const bad of [-1, 0, 1.5, 'ten', true, 10_000_001, [5]]) {
        const r = await postChat(gw.url, acct.key, chatRequest('gpt-sim', 'x', { [field]: bad }));
        expect(r.status, `${field}=${JSON.stringify(bad)}: ${r.text}`).toBe(400);
        expect(errorOf(r)).toMatchObject({ code: 'invalid_request', param: field });
        expect(errorOf(r).message).toContain(field);
      }
    }
    expect(gw.sim.stats().requests).toBe(0);
    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records.every((r) => r.charged_micro_usd === 0)).toBe(true);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(1_000_000);
  });
});
