import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { creditBalance } from '../../shared/billing/credit.js';
import { updateUserLimits } from '../../shared/db/user-limits.js';
import { publishOwnerChange } from '../../shared/keys/key-cache.js';
import type { KeyCreate } from '../../shared/keys/key-settings.js';
import { createKey } from '../../shared/keys/manage-keys.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, readEvents, waitUntil } from '../support/http.js';
import {
  controlClock,
  errorOf,
  keySeen,
  rateHeaderNames,
  rateTrio,
  retryAfter,
  whenUpstreamReached,
} from '../support/limits.js';
import { cliInProcess } from '../support/cli-in-process.js';
import { cliJson } from '../support/processes.js';

const clock = controlClock();
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    clock,
    catalog: (url) => {
      const base = testCatalog(url);
      return {
        ...base,
        groups: [
          ...base.groups,
          { id: 'tight', models: ['*'], rpm_limit: 2 },
          { id: 'tight-tpm', models: ['*'], tpm_limit: 5000 },
          { id: 'tight-conc', models: ['*'], concurrency_limit: 1 },
          { id: 'roomy', models: ['*'], rpm_limit: 1000 },
          { id: 'solo', models: ['*'], rpm_limit: 1 },
        ],
      };
    },
  });
});
afterAll(() => gw.close());
afterEach(() => clock.unfreeze());

const FUNDS = 100_000_000;
const call = (key: string, text = 'hi', extra: Record<string, unknown> = { max_tokens: 2 }) =>
  postChat(gw.url, key, chatRequest('gpt-sim', text, extra));

/** Another key of the same account. */
async function createExtraKey(userId: string, settings: KeyCreate = {}) {
  const admin = {
    db: gw.services.db,
    redis: gw.services.redis,
    channel: gw.services.redisKeys.keyInvalidation,
    catalog: gw.services.catalog,
  };
  const { row, key } = await createKey(admin, userId, settings);
  return { key, keyId: row.id };
}

/** Sets the account layer as the operator does (row + published change) and waits until this process sees it. */
async function setUserLimits(
  acct: { userId: string; key: string },
  limits: { rpm_limit?: number | null; tpm_limit?: number | null; concurrency_limit?: number | null },
) {
  await updateUserLimits(gw.services.db, acct.userId, limits);
  await publishOwnerChange(gw.services.redis, gw.services.redisKeys.keyInvalidation, acct.userId);
  await keySeen(
    gw,
    acct.key,
    (k) =>
      (limits.rpm_limit === undefined || k.owner.limits.rpm === limits.rpm_limit) &&
      (limits.tpm_limit === undefined || k.owner.limits.tpm === limits.tpm_limit) &&
      (limits.concurrency_limit === undefined || k.owner.limits.concurrency === limits.concurrency_limit),
  );
}

describe('the user layer', () => {
  it('user:limits --rpm 3 (CLI) limits every key of the account together, naming the user layer', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS });
    // Warm the key cache first: the CLI's change must reach an already cached key.
    expect((await call(acct.key)).status).toBe(200);
    const out = cliJson(await cliInProcess(['user:limits', '--email', acct.email, '--rpm', '3'], gw.env));
    expect(out).toMatchObject({ email: acct.email, rpm_limit: 3, tpm_limit: null, concurrency_limit: null });
    await keySeen(gw, acct.key, (k) => k.owner.limits.rpm === 3);

    const { key: otherKey } = await createExtraKey(acct.userId);
    const results = [await call(acct.key), await call(otherKey), await call(acct.key)];
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.map((r) => rateTrio(r.headers, 'Requests'))).toEqual([
      { limit: 3, remaining: 2, reset: 20 },
      { limit: 3, remaining: 1, reset: 40 },
      { limit: 3, remaining: 0, reset: 60 },
    ]);
    const refused = await call(otherKey);
    expect(refused.status).toBe(429);
    expect(errorOf(refused).code).toBe('rate_limit_exceeded');
    expect(errorOf(refused).message).toBe('rate limit exceeded: user limit of 3 requests per minute');
    expect(retryAfter(refused)).toBe(20);

    // `none` removes the limit again.
    cliJson(await cliInProcess(['user:limits', '--email', acct.email, '--rpm', 'none'], gw.env));
    await keySeen(gw, acct.key, (k) => k.owner.limits.rpm === null);
    const free = await call(acct.key);
    expect(free.status).toBe(200);
    expect(rateHeaderNames(free.headers)).toEqual([]);
  });

  it('user TPM and concurrency apply across the account keys', async () => {
    const acct = await gw.account({ balance: FUNDS });
    await setUserLimits(acct, { concurrency_limit: 1, tpm_limit: 100_000 });
    const { key: otherKey } = await createExtraKey(acct.userId);
    const abort = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${acct.key}` },
      body: JSON.stringify(
        chatRequest('gpt-sim', '[[sim:chunkDelayMs=100,outputTokens=30]] long', { stream: true, max_tokens: 30 }),
      ),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(rateTrio(res.headers, 'Tokens')?.limit).toBe(100_000);
    await readEvents(res, (e) => e.length >= 1);
    const refused = await call(otherKey);
    expect(refused.status).toBe(429);
    expect(errorOf(refused).message).toBe('concurrency limit exceeded: user limit of 1 calls in flight');
    abort.abort();
    await waitUntil(async () => (await call(otherKey)).status === 200, 5_000, 25);
  });
});

describe('the group layer', () => {
  it('a catalog group rpm_limit is shared by every key of the group, of any account, and is named in the refusal', async () => {
    clock.freeze();
    const a = await gw.account({ balance: FUNDS, key: { group: 'tight' } });
    const b = await gw.account({ balance: FUNDS, key: { group: 'tight' } });
    const c = await gw.account({ balance: FUNDS, key: { group: 'default' } });
    expect((await call(a.key)).status).toBe(200);
    const second = await call(b.key);
    expect(second.status).toBe(200);
    expect(rateTrio(second.headers, 'Requests')).toEqual({ limit: 2, remaining: 0, reset: 60 });
    const refused = await call(a.key);
    expect(refused.status).toBe(429);
    expect(errorOf(refused).message).toBe('rate limit exceeded: group limit of 2 requests per minute');
    expect(retryAfter(refused)).toBe(30);
    expect((await call(c.key)).status).toBe(200); // another group is not affected
  });

  it('group TPM and concurrency name the group layer', async () => {
    clock.freeze();
    const t = await gw.account({ balance: FUNDS, key: { group: 'tight-tpm' } });
    const over = await call(t.key, 'hi', { max_tokens: 5_000 });
    expect(over.status).toBe(429);
    expect(errorOf(over).message).toMatch(/group limit of 5000 tokens/);
    const ok = await call(t.key, 'hi', { max_tokens: 100 });
    expect(ok.status).toBe(200);
    expect(rateTrio(ok.headers, 'Tokens')?.limit).toBe(5000);

    const k = await gw.account({ balance: FUNDS, key: { group: 'tight-conc' } });
    const { result: slow } = await whenUpstreamReached(gw, () => call(k.key, '[[sim:latencyMs=300]] slow'));
    const refused = await call(k.key);
    expect(refused.status).toBe(429);
    expect(errorOf(refused).message).toBe('concurrency limit exceeded: group limit of 1 calls in flight');
    expect((await slow).status).toBe(200);
  });
});

describe('one decision for all layers: a refused call consumes nothing anywhere', () => {
  it('key RPM 10, user RPM 2: the user refusals leave the key counter as it was', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 10 } });
    await setUserLimits(acct, { rpm_limit: 2 });
    expect((await call(acct.key)).status).toBe(200);
    expect((await call(acct.key)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const r = await call(acct.key);
      expect(r.status).toBe(429);
      expect(errorOf(r).message).toMatch(/^rate limit exceeded: user limit/);
    }
    await setUserLimits(acct, { rpm_limit: null });
    const next = await call(acct.key);
    expect(next.status).toBe(200);
    // 10 − 2 admitted − this one: the five refusals took nothing from the key.
    expect(rateTrio(next.headers, 'Requests')).toMatchObject({ limit: 10, remaining: 7 });
  });

  it('key RPM 1, user RPM 5: the key refusals leave the user counter as it was', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 1 } });
    await setUserLimits(acct, { rpm_limit: 5 });
    expect((await call(acct.key)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await call(acct.key)).status).toBe(429);
    const { key: unlimited } = await createExtraKey(acct.userId);
    const r = await call(unlimited);
    expect(r.status).toBe(200);
    expect(rateTrio(r.headers, 'Requests')).toMatchObject({ limit: 5, remaining: 3 });
  });

  it('a concurrency refusal takes nothing from the key RPM', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 10, concurrency_limit: 1 } });
    const { result: slow } = await whenUpstreamReached(gw, () => call(acct.key, '[[sim:latencyMs=300]] slow'));
    for (let i = 0; i < 3; i++) {
      const r = await call(acct.key);
      expect(r.status).toBe(429);
      expect(errorOf(r).message).toMatch(/concurrency/);
    }
    expect((await slow).status).toBe(200);
    const after = await call(acct.key);
    expect(after.status).toBe(200);
    expect(rateTrio(after.headers, 'Requests')).toMatchObject({ limit: 10, remaining: 8 });
  });

  it('a balance refusal takes nothing from the key RPM', async () => {
    clock.freeze();
    const poor = await gw.account({ balance: 0, key: { rpm_limit: 10 } });
    for (let i = 0; i < 3; i++) expect((await call(poor.key)).status).toBe(402);
    await creditBalance(gw.services.db, gw.services.balances, poor.userId, FUNDS, 'test credit');
    const r = await call(poor.key);
    expect(r.status).toBe(200);
    expect(rateTrio(r.headers, 'Requests')).toMatchObject({ limit: 10, remaining: 9 });
  });

  it('a group refusal takes nothing from the key RPM', async () => {
    clock.freeze();
    // Key RPM 2 (one every 30 s), group RPM 1 (one every 60 s).
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 2, group: 'solo' } });
    expect((await call(acct.key)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const r = await call(acct.key);
      expect(r.status).toBe(429);
      expect(errorOf(r).message).toMatch(/group limit of 1 requests/);
    }
    // 60 s later the group has room again; had the refusals counted on the key (3 × 30 s more),
    // the key would still refuse.
    clock.advance(60_000);
    expect((await call(acct.key)).status).toBe(200);
  });

  it('a refusal reports the remaining count it left untouched', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 10, concurrency_limit: 1 } });
    const first = await call(acct.key);
    expect(rateTrio(first.headers, 'Requests')).toMatchObject({ remaining: 9 });
    const { result: slow } = await whenUpstreamReached(gw, () => call(acct.key, '[[sim:latencyMs=300]] slow'));
    const refused = await call(acct.key);
    expect(refused.status).toBe(429);
    expect((await slow).status).toBe(200);
    const next = await call(acct.key);
    expect(rateTrio(next.headers, 'Requests')).toMatchObject({ remaining: 7 });
    // Nothing was consumed by the refusal: 8 remained when it answered, and it must say so.
    expect(rateTrio(refused.headers, 'Requests')).toMatchObject({ limit: 10, remaining: 8 });

    const poor = await gw.account({ balance: 0, key: { rpm_limit: 4 } });
    const r402 = await call(poor.key);
    expect(r402.status).toBe(402);
    expect(rateTrio(r402.headers, 'Requests')).toMatchObject({ limit: 4, remaining: 4 });
  });
});

describe('rate-limit headers', () => {
  it('are absent when no layer limits requests or tokens', async () => {
    const acct = await gw.account({ balance: FUNDS });
    const r = await call(acct.key);
    expect(r.status).toBe(200);
    expect(rateHeaderNames(r.headers)).toEqual([]);
  });

  it('carry only the dimension a layer limits', async () => {
    const rpmOnly = await gw.account({ balance: FUNDS, key: { rpm_limit: 100, concurrency_limit: 3 } });
    const r1 = await call(rpmOnly.key);
    expect(rateHeaderNames(r1.headers)).toEqual([
      'x-ratelimit-limit-requests',
      'x-ratelimit-remaining-requests',
      'x-ratelimit-reset-requests',
    ]);
    const tpmOnly = await gw.account({ balance: FUNDS, key: { tpm_limit: 100_000 } });
    const r2 = await call(tpmOnly.key);
    expect(rateHeaderNames(r2.headers)).toEqual([
      'x-ratelimit-limit-tokens',
      'x-ratelimit-remaining-tokens',
      'x-ratelimit-reset-tokens',
    ]);
  });

  it('report the tightest layer per dimension', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 100, tpm_limit: 3000, group: 'roomy' } });
    await setUserLimits(acct, { rpm_limit: 5, tpm_limit: 1_000_000 });
    const r = await call(acct.key, 'hi', { max_tokens: 10 });
    expect(r.status).toBe(200);
    // requests: user 5 (4 left) beats key 100 and group 1000; tokens: key 3000 beats user 10^6.
    expect(rateTrio(r.headers, 'Requests')).toEqual({ limit: 5, remaining: 4, reset: 12 });
    expect(rateTrio(r.headers, 'Tokens')?.limit).toBe(3000);
  });

  it('on a model list (which counts one request) and a call refused before admission show where the caller stands', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 10, tpm_limit: 50_000 } });
    const ok = await call(acct.key);
    expect(ok.status).toBe(200);
    const used = (JSON.parse(ok.text) as { usage: { total_tokens: number } }).usage.total_tokens;
    const models = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${acct.key}` } });
    const invalid = await postChat(gw.url, acct.key, { model: 'gpt-sim' });
    expect([models.status, invalid.status]).toEqual([200, 400]);
    for (const r of [models, invalid]) {
      expect(rateTrio(r.headers, 'Requests')).toMatchObject({ limit: 10, remaining: 8 });
      // The tokens reserved from the estimate were corrected to the call's actual usage.
      const tokens = rateTrio(r.headers, 'Tokens')!;
      expect(tokens.limit).toBe(50_000);
      expect(Math.abs(tokens.remaining - (50_000 - used))).toBeLessThanOrEqual(1);
    }
  });

  it('are on successes, streams, 429s, 402s and upstream errors alike', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 4, tpm_limit: 50_000 } });
    const ok = await call(acct.key);
    const stream = await call(acct.key, 'stream', { stream: true, max_tokens: 2 });
    const upstream500 = await call(acct.key, '[[sim:fault=error500]]');
    const upstream429 = await call(acct.key, '[[sim:fault=error429]]');
    const refused = await call(acct.key);
    expect([ok, stream, upstream500, upstream429, refused].map((r) => r.status)).toEqual([200, 200, 502, 429, 429]);
    expect(errorOf(upstream429).code).toBe('upstream_rate_limited');
    expect(errorOf(refused).code).toBe('rate_limit_exceeded');
    expect(
      [ok, stream, upstream500, upstream429, refused].map((r) => rateTrio(r.headers, 'Requests')?.remaining),
    ).toEqual([3, 2, 1, 0, 0]);
    for (const r of [ok, stream, upstream500, upstream429, refused])
      expect(rateTrio(r.headers, 'Tokens')?.limit).toBe(50_000);

    const poor = await gw.account({ balance: 0, key: { rpm_limit: 4 } });
    const r402 = await call(poor.key);
    expect(r402.status).toBe(402);
    expect(rateTrio(r402.headers, 'Requests')?.limit).toBe(4);
  });
});

describe('Retry-After is honest', () => {
  it('a retry after Retry-After seconds is admitted; one second earlier it is not', async () => {
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 2 } });
    expect((await call(acct.key)).status).toBe(200);
    expect((await call(acct.key)).status).toBe(200);
    const refused = await call(acct.key);
    expect(refused.status).toBe(429);
    const wait = retryAfter(refused);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(30);
    clock.advance((wait - 1) * 1000);
    expect((await call(acct.key)).status).toBe(429);
    clock.advance(1000);
    expect((await call(acct.key)).status).toBe(200);
  });

  it('for TPM too (frozen time: the wait has a fraction of a second that real time would eat)', async () => {
    clock.freeze();
    const acct = await gw.account({ balance: FUNDS, key: { tpm_limit: 3000 } });
    expect((await call(acct.key, '[[sim:outputTokens=2000]] hi', { max_tokens: 2000 })).status).toBe(200);
    const refused = await call(acct.key, '[[sim:outputTokens=2000]] hi', { max_tokens: 2000 });
    expect(refused.status).toBe(429);
    expect(errorOf(refused).message).toMatch(/key limit of 3000 tokens/);
    const wait = retryAfter(refused);
    expect(wait).toBeGreaterThan(1);
    clock.advance((wait - 1) * 1000);
    expect((await call(acct.key, '[[sim:outputTokens=2000]] hi', { max_tokens: 2000 })).status).toBe(429);
    clock.advance(1000);
    expect((await call(acct.key, '[[sim:outputTokens=2000]] hi', { max_tokens: 2000 })).status).toBe(200);
  });

  it('when two layers refuse, the wait covers both', async () => {
    clock.freeze();
    // Key RPM 3 fills first (while the account has no limit); then the account gets RPM 1 and
    // another key of it uses it. Now both layers refuse: the key for 20 s, the account for 60 s.
    const acct = await gw.account({ balance: FUNDS, key: { rpm_limit: 3 } });
    for (let i = 0; i < 3; i++) expect((await call(acct.key)).status).toBe(200);
    await setUserLimits(acct, { rpm_limit: 1 });
    const other = await createExtraKey(acct.userId);
    expect((await call(other.key)).status).toBe(200);
    const refused = await call(acct.key);
    expect(refused.status).toBe(429);
    const wait = retryAfter(refused);
    clock.advance(wait * 1000);
    const retry = await call(acct.key);
    expect(retry.status, `retried after Retry-After ${wait}: ${retry.text}`).toBe(200);
  });
});
