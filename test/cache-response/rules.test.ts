import OpenAI from 'openai';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishKeyChange } from '../../shared/keys/key-cache.js';
import { api, signIn } from '../console/helpers.js';
import { cliInProcess } from '../support/cli-in-process.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { waitForUsage } from '../support/money.js';
import { monitorRedis } from '../support/redis-monitor.js';
import { ask, cacheCatalog, cacheEntries, chat, upstreamCalls, waitForEntries } from './support.js';

// Who may use an entry, what a hit costs, where the TTL comes from, what is never stored.
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ catalog: cacheCatalog, sim: { apiKey: 'sim-upstream-secret' } });
});
afterAll(() => gw?.close());

const CACHED = { cache_ttl_seconds: 600 };

describe('who may use an entry', () => {
  it('never answers another account from an entry', async () => {
    const a = await gw.account({ balance: 5_000_000, key: CACHED });
    const b = await gw.account({ balance: 5_000_000, key: CACHED });
    const body = ask('gpt-sim', 'the same question from two accounts');
    expect((await chat(gw, a.key, body)).cache).toBe('MISS');
    await waitForEntries(gw, a.userId, 1);
    expect((await chat(gw, a.key, body)).cache).toBe('HIT');
    const before = upstreamCalls(gw, 'sim-model');
    const other = await chat(gw, b.key, body);
    expect(other.status).toBe(200);
    expect(other.cache).toBe('MISS');
    expect(upstreamCalls(gw, 'sim-model')).toBe(before + 1);
  });

  it('runs the validation steps before any lookup: revoked key, IP allowlist, model outside the group', async () => {
    const owner = await gw.account({ balance: 5_000_000, key: CACHED });
    for (const model of ['gpt-sim', 'restricted-sim']) {
      expect((await chat(gw, owner.key, ask(model, 'validated first'))).cache).toBe('MISS');
    }
    await waitForEntries(gw, owner.userId, 2);
    const admin = { db: gw.services.db, redis: gw.services.redis, channel: gw.services.redisKeys.keyInvalidation };
    const { createKey, setKeyStatus } = await import('../../shared/keys/manage-keys.js');
    const key = async (settings: Record<string, unknown>) =>
      (await createKey({ ...admin, catalog: gw.services.catalog }, owner.userId, { ...CACHED, ...settings })).key;

    const fenced = await chat(gw, await key({ ip_allowlist: ['10.1.2.0/24'] }), ask('gpt-sim', 'validated first'));
    expect(fenced.status).toBe(403);
    expect(fenced.json.error.code).toBe('ip_not_allowed');
    expect(fenced.cache).toBeNull();

    const narrow = await chat(gw, await key({ group: 'basic' }), ask('restricted-sim', 'validated first'));
    expect(narrow.status).toBe(403);
    expect(narrow.json.error.code).toBe('model_not_allowed');
    expect(narrow.cache).toBeNull();

    const { row, key: secret } = await createKey({ ...admin, catalog: gw.services.catalog }, owner.userId, CACHED);
    expect((await chat(gw, secret, ask('gpt-sim', 'validated first'))).cache).toBe('HIT');
    await setKeyStatus(admin, owner.userId, row.id, 'revoked');
    await expect
      .poll(async () => (await chat(gw, secret, ask('gpt-sim', 'validated first'))).status, { timeout: 5_000 })
      .toBe(401);
    // The entries were written by the first key: revoking another key leaves them.
    expect(await cacheEntries(gw, owner.userId)).toBe(2);
  });

  it('refuses a key that expired before any lookup: no command touches the account’s entries', async () => {
    const owner = await gw.account({ balance: 5_000_000, key: CACHED });
    const body = ask('gpt-sim', 'expires');
    expect((await chat(gw, owner.key, body)).cache).toBe('MISS');
    await waitForEntries(gw, owner.userId, 1);
    expect((await chat(gw, owner.key, body)).cache).toBe('HIT');
    const { redis, redisKeys, db } = gw.services;
    await db
      .updateTable('api_keys')
      .set({ expires_at: sql<Date>`now() - interval '1 minute'` })
      .where('id', '=', owner.keyId)
      .execute();
    await publishKeyChange(redis, redisKeys.keyInvalidation, owner.keyId);
    await expect.poll(async () => (await chat(gw, owner.key, body)).status, { timeout: 5_000 }).toBe(401);

    // Every command Redis runs from here, until the marker below, is seen in order.
    const entries = `rc:{${owner.userId}}`;
    const marker = `${gw.env.REDIS_PREFIX}marker:${randomUUID()}`;
    const touched: string[][] = [];
    let markerSeen = false;
    const monitor = await monitorRedis(gw.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ({ args }) => {
      if (args.some((a) => a.includes(entries))) touched.push(args);
      if (args.includes(marker)) markerSeen = true;
    });
    try {
      const refused = await chat(gw, owner.key, body);
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe('key_expired');
      expect(refused.cache).toBeNull();
      await redis.get(marker);
      await waitUntil(() => markerSeen, 5_000);
    } finally {
      monitor.stop();
    }
    expect(touched).toEqual([]);
    expect(await cacheEntries(gw, owner.userId)).toBe(1);
  });
});

describe('what a hit costs', () => {
  it("charges the model's cache_hit_percent of the original price (default 0: free), recorded as a hit", async () => {
    const acct = await gw.account({ balance: 5_000_000, key: CACHED });
    for (const model of ['half-sim', 'gpt-sim']) {
      const body = ask(model, `priced ${model}`, { max_tokens: 50 });
      expect((await chat(gw, acct.key, body)).cache).toBe('MISS');
      await waitForEntries(gw, acct.userId, model === 'half-sim' ? 1 : 2);
      expect((await chat(gw, acct.key, body)).cache).toBe('HIT');
    }
    const rows = await waitForUsage(gw, acct.userId, 4);
    const [halfMiss, halfHit, fullMiss, fullHit] = rows;
    expect(halfMiss).toMatchObject({ model: 'half-sim', cache_hit: false });
    expect(halfHit).toMatchObject({
      model: 'half-sim',
      cache_hit: true,
      input_tokens: halfMiss!.input_tokens,
      output_tokens: halfMiss!.output_tokens,
    });
    expect(Number(halfMiss!.charged_micro_usd)).toBeGreaterThan(0);
    expect(Number(halfHit!.charged_micro_usd)).toBe(Math.round(Number(halfMiss!.charged_micro_usd) / 2));
    expect(fullMiss).toMatchObject({ model: 'gpt-sim', cache_hit: false });
    expect(fullHit).toMatchObject({ model: 'gpt-sim', cache_hit: true, output_tokens: fullMiss!.output_tokens });
    expect(Number(fullHit!.charged_micro_usd)).toBe(0);

    // Logs show the column and filter on it; reports count the hits of each group.
    const s = await signIn(gw, acct.email);
    const hitsOnly = await api(gw, 'GET', '/usage/logs?cache_hit=true', { token: s.token });
    expect(hitsOnly.json.list.map((r: { cache_hit: boolean }) => r.cache_hit)).toEqual([true, true]);
    const others = await api(gw, 'GET', '/usage/logs?cache_hit=false', { token: s.token });
    expect(others.json.list.map((r: { model: string }) => r.model).sort()).toEqual(['gpt-sim', 'half-sim']);
    const bad = await api(gw, 'GET', '/usage/logs?cache_hit=maybe', { token: s.token });
    expect(bad.status).toBe(400);
    const day = new Date().toISOString().slice(0, 10);
    const report = await api(gw, 'GET', `/usage/report?group_by=model&start=${day}&end=${day}`, { token: s.token });
    expect(report.json.data.total).toMatchObject({ requests: 4, cache_hits: 2 });
  });

  it('counts a hit as a request for RPM, and its tokens toward no TPM limit', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: CACHED });
    const body = ask('gpt-sim', 'tpm', { max_tokens: 20 });
    const first = await chat(gw, acct.key, body);
    expect(first).toMatchObject({ status: 200, cache: 'MISS' });
    await waitForEntries(gw, acct.userId, 1);
    // Another key of the account may spend fewer tokens a minute than that one answer holds.
    const answerTokens = first.json.usage.total_tokens as number;
    const tpm = Math.floor(answerTokens / 2);
    expect(tpm).toBeGreaterThan(0);
    const { createKey } = await import('../../shared/keys/manage-keys.js');
    const admin = { db: gw.services.db, redis: gw.services.redis, channel: gw.services.redisKeys.keyInvalidation };
    const tight = (
      await createKey({ ...admin, catalog: gw.services.catalog }, acct.userId, { ...CACHED, tpm_limit: tpm })
    ).key;
    // Its hits pass, again and again, each worth twice its limit: a hit's tokens count toward no TPM.
    for (let i = 0; i < 5; i++) {
      const hit = await chat(gw, tight, body);
      expect(hit).toMatchObject({ status: 200, cache: 'HIT' });
      expect(hit.json.usage.total_tokens).toBe(answerTokens);
    }
    // A miss is held to the limit.
    const miss = await chat(gw, tight, ask('gpt-sim', 'another question', { max_tokens: 20 }));
    expect(miss.status).toBe(429);
    expect(miss.json.error.code).toBe('rate_limit_exceeded');

    const limited = await gw.account({ balance: 5_000_000, key: { ...CACHED, rpm_limit: 2 } });
    const again = ask('gpt-sim', 'rpm');
    expect((await chat(gw, limited.key, again)).status).toBe(200);
    await waitForEntries(gw, limited.userId, 1);
    expect((await chat(gw, limited.key, again)).cache).toBe('HIT');
    const third = await chat(gw, limited.key, again);
    expect(third.status).toBe(429);
    expect(third.json.error.code).toBe('rate_limit_exceeded');
  });
});

describe('where the TTL comes from', () => {
  it('takes the header over the preset, the preset over the key; off by default; 0 bypasses', async () => {
    const plain = await gw.account({ balance: 5_000_000 });
    const looked = await fetch(`${gw.url}/v1/key/usage`, { headers: { authorization: `Bearer ${plain.key}` } });
    expect(((await looked.json()) as { cache_ttl_seconds: number | null }).cache_ttl_seconds).toBeNull();
    const body = ask('gpt-sim', 'ttl precedence');
    expect((await chat(gw, plain.key, body)).cache).toBe('BYPASS');
    expect((await chat(gw, plain.key, body)).cache).toBe('BYPASS');
    expect(await cacheEntries(gw, plain.userId)).toBe(0);

    // The header turns it on for one call, with its TTL.
    expect((await chat(gw, plain.key, body, { 'X-Service-Cache-TTL': '120' })).cache).toBe('MISS');
    await waitForEntries(gw, plain.userId, 1);
    const [entry] = await gw.services.redis.zrangebyscore(
      gw.services.redisKeys.cacheAccount(plain.userId),
      '-inf',
      '+inf',
    );
    const ttl = await gw.services.redis.pttl(entry!);
    expect(ttl).toBeGreaterThan(100_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    expect((await chat(gw, plain.key, body)).cache).toBe('BYPASS');
    expect((await chat(gw, plain.key, body, { 'X-Service-Cache-TTL': '60' })).cache).toBe('HIT');

    // The key's TTL, overridden by a preset's 0, overridden by the header.
    const keyed = await gw.account({ balance: 5_000_000, key: CACHED });
    const lookup = await fetch(`${gw.url}/v1/key/usage`, { headers: { authorization: `Bearer ${keyed.key}` } });
    expect(((await lookup.json()) as { cache_ttl_seconds: number }).cache_ttl_seconds).toBe(600);
    const s = await signIn(gw, keyed.email);
    const created = await api(gw, 'POST', '/presets', {
      token: s.token,
      body: { slug: 'uncached', models: ['gpt-sim'], cache_ttl_seconds: 0 },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data.cache_ttl_seconds).toBe(0);
    const viaPreset = ask('@preset/uncached', 'preset ttl');
    expect((await chat(gw, keyed.key, viaPreset)).cache).toBe('BYPASS');
    expect((await chat(gw, keyed.key, viaPreset, { 'X-Service-Cache-TTL': '30' })).cache).toBe('MISS');
    expect((await chat(gw, keyed.key, ask('gpt-sim', 'preset ttl'))).cache).toBe('MISS');
    expect((await chat(gw, keyed.key, ask('gpt-sim', 'key ttl'), { 'X-Service-Cache-TTL': '0' })).cache).toBe('BYPASS');
    const patched = await api(gw, 'PATCH', '/presets/uncached', { token: s.token, body: { cache_ttl_seconds: 300 } });
    expect(patched.json.data.cache_ttl_seconds).toBe(300);
    expect(
      (await api(gw, 'PATCH', '/presets/uncached', { token: s.token, body: { cache_ttl_seconds: -1 } })).status,
    ).toBe(400);

    // The key's own setting, from the console: seconds up to 30 days, or null.
    const keyPath = `/keys/${keyed.keyId}`;
    for (const bad of [-1, 2_592_001, 1.5, '60']) {
      const refused = await api(gw, 'PATCH', keyPath, { token: s.token, body: { cache_ttl_seconds: bad } });
      expect(refused.status, String(bad)).toBe(400);
      expect(refused.json.param).toBe('cache_ttl_seconds');
    }
    const off = await api(gw, 'PATCH', keyPath, { token: s.token, body: { cache_ttl_seconds: null } });
    expect(off.json.data.cache_ttl_seconds).toBeNull();
    await expect
      .poll(async () => (await chat(gw, keyed.key, ask('gpt-sim', 'key ttl now off'))).cache, { timeout: 5_000 })
      .toBe('BYPASS');
  });

  it('refuses a malformed header with a 400 naming it, in the caller’s protocol', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: CACHED });
    for (const value of ['-1', 'abc', '2592001', '1.5', '1e3']) {
      const reply = await chat(gw, acct.key, ask('gpt-sim', 'bad header'), { 'X-Service-Cache-TTL': value });
      expect(reply.status, value).toBe(400);
      expect(reply.json.error.param).toBe('X-Service-Cache-TTL');
      expect(reply.json.error.message).toContain('X-Service-Cache-TTL');
    }
    const messages = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': acct.key, 'content-type': 'application/json', 'X-Service-Cache-TTL': 'NaN' },
      body: JSON.stringify({ model: 'gpt-sim', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(messages.status).toBe(400);
    const error = (await messages.json()) as { type: string; error: { message: string } };
    expect(error.type).toBe('error');
    expect(error.error.message).toContain('X-Service-Cache-TTL');
    const embeddings = await fetch(`${gw.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json', 'X-Service-Cache-TTL': '-5' },
      body: JSON.stringify({ model: 'embed-sim', input: 'hi' }),
    });
    expect(embeddings.status).toBe(400);
    expect(((await embeddings.json()) as { error: { param: string } }).error.param).toBe('X-Service-Cache-TTL');
    expect(upstreamCalls(gw, 'up-embed')).toBe(0);
  });
});

describe('what is never stored', () => {
  it('a stream the upstream cut, or that failed, is not cached; a clean one is', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: CACHED });
    const stream = { stream: true };
    for (const fault of ['disconnect', 'errorMidStream']) {
      const body = ask('gpt-sim', `cut [[sim:fault=${fault}]]`, stream);
      const cut = await chat(gw, acct.key, body);
      expect(cut.cache).toBe('MISS');
      expect(cut.text).not.toContain('[DONE]');
      expect((await chat(gw, acct.key, body)).cache).toBe('MISS');
    }
    const failed = ask('gpt-sim', 'failed [[sim:fault=error500]]');
    expect((await chat(gw, acct.key, failed)).status).toBeGreaterThanOrEqual(500);
    const clean = ask('gpt-sim', 'clean stream', stream);
    expect((await chat(gw, acct.key, clean)).text).toContain('[DONE]');
    await waitForEntries(gw, acct.userId, 1);
    expect((await chat(gw, acct.key, clean)).cache).toBe('HIT');
    expect((await chat(gw, acct.key, failed)).cache).toBe('MISS');
    expect(await cacheEntries(gw, acct.userId)).toBe(1);
  });

  it('a content-filtered answer, whole or streamed, is not cached', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: CACHED });
    for (const extra of [{}, { stream: true }]) {
      const body = ask('gpt-sim', 'filtered [[sim:contentFilter=true]]', extra);
      const first = await chat(gw, acct.key, body);
      expect(first.status).toBe(200);
      expect(first.text).toContain('content_filter');
      expect((await chat(gw, acct.key, body)).cache).toBe('MISS');
    }
    // The same account's next answer is stored (the store ran, and passed the filtered ones over).
    expect((await chat(gw, acct.key, ask('gpt-sim', 'not filtered'))).cache).toBe('MISS');
    await waitForEntries(gw, acct.userId, 1);
    expect(await cacheEntries(gw, acct.userId)).toBe(1);
  });

  it('bypasses n > 1, and caches embeddings', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: CACHED });
    expect((await chat(gw, acct.key, ask('gpt-sim', 'two answers', { n: 2 }))).cache).toBe('BYPASS');
    const client = new OpenAI({ apiKey: acct.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const embed = () =>
      client.embeddings
        .create({ model: 'embed-sim', input: ['one text', 'two texts'], encoding_format: 'float' })
        .withResponse();
    const miss = await embed();
    expect(miss.response.headers.get('x-service-cache')).toBe('MISS');
    await waitForEntries(gw, acct.userId, 1);
    const before = upstreamCalls(gw, 'up-embed');
    const hit = await embed();
    expect(hit.response.headers.get('x-service-cache')).toBe('HIT');
    expect(hit.data.data.map((d) => d.embedding)).toEqual(miss.data.data.map((d) => d.embedding));
    expect(hit.data.usage).toEqual(miss.data.usage);
    expect(upstreamCalls(gw, 'up-embed')).toBe(before);
    const rows = await waitForUsage(gw, acct.userId, 3);
    expect(rows.filter((r) => r.endpoint === 'embeddings').map((r) => r.cache_hit)).toEqual([false, true]);
  });
});

describe('purging', () => {
  it('purges an account from the console, and a key’s entries when it is revoked', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: CACHED });
    const s = await signIn(gw, acct.email);
    for (const q of ['p1', 'p2', 'p3']) expect((await chat(gw, acct.key, ask('gpt-sim', q))).cache).toBe('MISS');
    await waitForEntries(gw, acct.userId, 3);
    const used = await gw.services.responseCache.usedBytes();
    expect(used).toBeGreaterThan(0);
    const purged = await api(gw, 'DELETE', '/cache', { token: s.token });
    expect(purged.status).toBe(200);
    expect(purged.json.data).toEqual({ purged: 3 });
    expect(await cacheEntries(gw, acct.userId)).toBe(0);
    expect(await gw.services.responseCache.usedBytes()).toBeLessThan(used);
    expect((await chat(gw, acct.key, ask('gpt-sim', 'p1'))).cache).toBe('MISS');
    await waitForEntries(gw, acct.userId, 1);

    const revoked = await api(gw, 'POST', `/keys/${acct.keyId}/revoke`, { token: s.token });
    expect(revoked.status).toBe(200);
    expect(await cacheEntries(gw, acct.userId)).toBe(0);
    expect(await gw.services.redis.exists(gw.services.redisKeys.cacheKey(acct.keyId))).toBe(0);
  });
});

describe('the CLI', () => {
  it('sets a key’s TTL with --cache-ttl, removes it with none, refuses a bad one, and purges on key:revoke', async () => {
    const acct = await gw.account({ balance: 5_000_000 });
    const cli = (...args: string[]) => cliInProcess(args, gw.env);
    const created = await cli('key:create', '--email', acct.email, '--cache-ttl', '120');
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; cache_ttl_seconds: number };
    expect(key.cache_ttl_seconds).toBe(120);
    expect((await chat(gw, key.key, ask('gpt-sim', 'from the cli'))).cache).toBe('MISS');
    await waitForEntries(gw, acct.userId, 1);
    expect((await chat(gw, key.key, ask('gpt-sim', 'from the cli'))).cache).toBe('HIT');

    const bad = await cli('key:update', '--key-id', key.id, '--cache-ttl', '-5');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/cache/);
    const off = await cli('key:update', '--key-id', key.id, '--cache-ttl', 'none');
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout).cache_ttl_seconds).toBeNull();

    const revoked = await cli('key:revoke', '--key-id', key.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await cacheEntries(gw, acct.userId)).toBe(0);
  });
});
