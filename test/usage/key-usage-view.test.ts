import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../shared/keys/manage-keys.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { drained, usageRecords } from '../support/money.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('GET /v1/key/usage after a known series of calls', () => {
  it('shows exactly this key: caps, spend and what remains, limits, 30 days by model, the 20 latest calls newest first', async () => {
    const acct = await gw.account({
      balance: 50_000_000,
      key: {
        name: 'lookup key',
        total_micro_usd: 9_000_000,
        monthly_micro_usd: 8_000_000,
        rpm_limit: 500,
        tpm_limit: null,
        concurrency_limit: 3,
      },
    });
    for (let i = 0; i < 22; i++) {
      expect(
        (
          await postChat(
            gw.url,
            acct.key,
            chatRequest(i % 2 ? 'gpt-sim' : 'free-sim', `call ${i}`, { max_tokens: 3 }),
            { 'x-request-id': `lookup-${i}` },
          )
        ).status,
      ).toBe(200);
    }
    expect(
      (
        await postChat(gw.url, acct.key, chatRequest('gpt-sim', '[[sim:fault=error500]] fails'), {
          'x-request-id': 'lookup-fail',
        })
      ).status,
    ).toBe(502);
    // Another key of the same account, used last: never in this key's view.
    const admin = {
      db: gw.services.db,
      redis: gw.services.redis,
      channel: gw.services.redisKeys.keyInvalidation,
      catalog: gw.services.catalog,
    };
    const second = await createKey(admin, acct.userId, { name: 'second' });
    expect(
      (
        await postChat(gw.url, second.key, chatRequest('gpt-sim', 'another key', { max_tokens: 3 }), {
          'x-request-id': 'other-key',
        })
      ).status,
    ).toBe(200);
    await drained(gw);

    const res = await fetch(`${gw.url}/v1/key/usage`, { headers: { authorization: `Bearer ${acct.key}` } });
    expect(res.status).toBe(200);
    const view = (await res.json()) as Record<string, any>;
    expect(Object.keys(view).sort()).toEqual([
      'budget',
      'cache_ttl_seconds',
      'key',
      'last_30_days',
      'limits',
      'quota',
      'recent',
    ]);
    expect(view.cache_ttl_seconds).toBeNull(); // test/cache-response/rules.test.ts covers a key with one
    expect(view.budget).toBeNull(); // test/limits/budgets.test.ts covers a key with one
    expect(JSON.stringify(view)).not.toMatch(/balance/);

    const records = (await usageRecords(gw.services.db, acct.userId)).filter((r) => r.api_key_id === acct.keyId);
    const spent = records.reduce((s, r) => s + r.charged_micro_usd, 0);
    expect(spent).toBeGreaterThan(0);
    expect(view.key).toEqual({
      name: 'lookup key',
      prefix: acct.key.slice(0, 8),
      last4: acct.key.slice(-4),
      status: 'active',
      expires_at: null,
      created_at: expect.any(String),
    });
    expect(view.quota).toEqual({
      total_micro_usd: 9_000_000,
      used_total_micro_usd: spent,
      remaining_total_micro_usd: 9_000_000 - spent,
      daily_micro_usd: null,
      used_daily_micro_usd: spent,
      monthly_micro_usd: 8_000_000,
      used_monthly_micro_usd: spent,
      remaining_monthly_micro_usd: 8_000_000 - spent,
    });
    expect(view.limits).toEqual({ rpm_limit: 500, tpm_limit: null, concurrency_limit: 3 });

    const byModel = Object.fromEntries((view.last_30_days.models as Array<{ model: string }>).map((m) => [m.model, m]));
    expect(byModel['gpt-sim']).toMatchObject({ requests: 12, errors: 1 });
    expect(byModel['free-sim']).toMatchObject({ requests: 11, errors: 0, charged_micro_usd: 0 });
    expect(view.last_30_days.total).toMatchObject({ requests: 23, errors: 1, charged_micro_usd: spent });
    expect(new Date(view.last_30_days.end).getTime() - new Date(view.last_30_days.start).getTime()).toBe(
      30 * 86_400_000,
    );

    expect(view.recent).toHaveLength(20);
    expect(view.recent.map((r: { request_id: string }) => r.request_id)).toEqual([
      'lookup-fail',
      ...Array.from({ length: 19 }, (_, i) => `lookup-${21 - i}`),
    ]);
    expect(view.recent[0]).toMatchObject({ model: 'gpt-sim', status_code: 502, charged_micro_usd: 0 });
    expect(Object.keys(view.recent[1]).sort()).toEqual([
      'charged_micro_usd',
      'created_at',
      'input_tokens',
      'model',
      'output_tokens',
      'request_id',
      'status_code',
    ]);
  });
});
