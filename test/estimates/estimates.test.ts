import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishKeyChange } from '../../shared/keys/key-cache.js';
import { api, signIn } from '../console/helpers.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
import { estimate, keySeen, postJson, rateTrio } from '../support/limits.js';
import { drained, simPromptTokens, usageRecords } from '../support/money.js';
import { cliInProcess } from '../support/cli-in-process.js';
import { cliJson } from '../support/processes.js';

// Independent arithmetic: exact scaled micro-USD (× 10^6), both discounts compounded in basis
// points, rounded up once.
function priced(scaled: bigint, accountPercent = 0, groupPercent = 0): number {
  const keepA = BigInt(10_000 - Math.round(accountPercent * 100));
  const keepG = BigInt(10_000 - Math.round(groupPercent * 100));
  const num = scaled * keepA * keepG;
  const den = 1_000_000n * 100_000_000n;
  return Number((num + den - 1n) / den);
}
const M = 1_000_000n;

const CHAT_ODD = { input_per_mtok: 1_250_001, output_per_mtok: 3_333_333, per_request: 100 };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    catalog: (url) => {
      const base = testCatalog(url);
      const route = [{ provider: 'sim', upstream_model: 'sim-model' }];
      // Video models need a provider whose protocol serves videos; estimates never call it.
      const videoRoute = [{ provider: 'sim-videos', upstream_model: 'sim-video' }];
      const models = [
        {
          id: 'chat-odd',
          endpoints: ['chat/completions'],
          routes: route,
          pricing: CHAT_ODD,
          max_output_tokens: 500,
          auto: true,
          quality: 10,
        },
        {
          id: 'chat-zero',
          endpoints: ['chat/completions'],
          routes: route,
          pricing: { input_per_mtok: 0, output_per_mtok: 0 },
        },
        {
          id: 'chat-tiny',
          endpoints: ['chat/completions'],
          routes: route,
          pricing: { input_per_mtok: 1, output_per_mtok: 0 },
        },
        { id: 'img-flat', endpoints: ['images/generations'], routes: route, pricing: { per_image: 40_000 } },
        { id: 'img-odd', endpoints: ['images/generations'], routes: route, pricing: { per_image: 1_001 } },
        {
          id: 'img-sized',
          endpoints: ['images/generations'],
          routes: route,
          pricing: { per_image: { '1024x1024': 40_000, '512x512': 18_000 }, per_request: 5 },
        },
        {
          id: 'img-free',
          endpoints: ['images/generations'],
          routes: route,
          free: true,
          pricing: { per_image: 40_000 },
        },
        {
          id: 'img-zero-map',
          endpoints: ['images/generations'],
          routes: route,
          pricing: { per_image: { '1024x1024': 0, '512x512': 0 } },
        },
        {
          id: 'vid',
          endpoints: ['videos'],
          routes: videoRoute,
          pricing: {
            per_second: { '720p': 10_000, '1080p': 25_000 },
            per_second_with_audio: { '720p': 15_000, '1080p': 30_000 },
          },
          durations: [5, 10],
          resolutions: ['720p', '1080p'],
        },
        {
          id: 'vid-flat',
          endpoints: ['videos'],
          routes: videoRoute,
          pricing: { per_second: 3_000, per_request: 7 },
          durations: [4, 8],
          resolutions: ['480p'],
        },
      ];
      return {
        ...base,
        providers: [
          ...base.providers,
          { id: 'sim-videos', protocol: 'openai-videos', base_url: `${url}/v1`, api_key: 'sim-upstream-secret' },
        ],
        models: [...base.models, ...models],
        groups: [
          ...base.groups,
          { id: 'disc', models: ['*'], discount_percent: 10 },
          { id: 'disc-odd', models: ['*'], discount_percent: 33.33 },
        ],
      };
    },
  });
});
afterAll(() => gw.close());

const videoText = [{ type: 'text', text: 'a cat on a skateboard' }];

describe('POST /v1/estimates: routing models', () => {
  it('auto, auto:*, @preset/<slug> and no model (the default preset) answer the most the call can cost over the candidates', async () => {
    const acct = await gw.account({ key: { default_preset: 'pair' } });
    const { token } = await signIn(gw, acct.email);
    for (const [slug, models] of [
      ['pair', ['chat-tiny', 'chat-odd']],
      ['zeros', ['chat-zero']],
    ] as const) {
      const created = await api(gw, 'POST', '/presets', { token, body: { slug, models } });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
    }
    const messages = [{ role: 'user', content: 'How far is the moon?' }];
    const alone = async (model: string) => {
      const r = await estimate(gw, acct.key, 'chat/completions', { model, messages, max_tokens: 50 });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      return r.json as { estimated_micro_usd: number; is_free: boolean };
    };
    const [gpt, odd, tiny, zero] = [
      await alone('gpt-sim'),
      await alone('chat-odd'),
      await alone('chat-tiny'),
      await alone('chat-zero'),
    ];
    expect(gpt.estimated_micro_usd).not.toBe(odd.estimated_micro_usd);
    const cases: Array<[string | undefined, { estimated_micro_usd: number; is_free: boolean }]> = [
      ['auto', { estimated_micro_usd: Math.max(gpt.estimated_micro_usd, odd.estimated_micro_usd), is_free: false }],
      [
        'auto:cost',
        { estimated_micro_usd: Math.max(gpt.estimated_micro_usd, odd.estimated_micro_usd), is_free: false },
      ],
      [
        '@preset/pair',
        { estimated_micro_usd: Math.max(tiny.estimated_micro_usd, odd.estimated_micro_usd), is_free: false },
      ],
      [undefined, { estimated_micro_usd: Math.max(tiny.estimated_micro_usd, odd.estimated_micro_usd), is_free: false }],
      ['@preset/zeros', zero],
    ];
    for (const [model, expected] of cases) {
      const r = await estimate(gw, acct.key, 'chat/completions', { ...(model && { model }), messages, max_tokens: 50 });
      expect(r.status, `${model}: ${JSON.stringify(r.json)}`).toBe(200);
      expect(r.json, model).toEqual(expected);
    }
    const unknown = await estimate(gw, acct.key, 'chat/completions', { model: '@preset/nope', messages });
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'model_not_found']);
  });
});

describe('POST /v1/estimates: each endpoint', () => {
  it('chat/completions: the prompt counted with the o200k tokenizer (3 + 4 per message) plus the most output the call allows, rounded up once', async () => {
    const { key } = await gw.account();
    const messages = [
      { role: 'system', content: 'You answer briefly.' },
      { role: 'user', content: 'What is the capital of France?' },
    ];
    const promptTokens = BigInt(messages.reduce((sum, m) => sum + 4 + countTokens(m.role) + countTokens(m.content), 3));
    const scaled = (out: number) =>
      promptTokens * BigInt(CHAT_ODD.input_per_mtok) + BigInt(out) * BigInt(CHAT_ODD.output_per_mtok) + 100n * M;
    const cases: [Record<string, unknown>, number][] = [
      [{}, 500], // the model's max_output_tokens
      [{ max_tokens: 7 }, 7],
      [{ max_completion_tokens: 9, max_tokens: 7 }, 9],
    ];
    for (const [extra, out] of cases) {
      const r = await estimate(gw, key, 'chat/completions', { model: 'chat-odd', messages, ...extra });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json).toEqual({ estimated_micro_usd: priced(scaled(out)), is_free: false });
    }
    // The rounding is per call: 1 micro-USD more than the exact price at most.
    expect(priced(scaled(7))).toBe(Math.ceil(Number(scaled(7)) / 1e6));
  });

  it('images/generations: per_image as an integer or by size, × n, plus per_request', async () => {
    const { key } = await gw.account();
    const q = (payload: Record<string, unknown>) =>
      estimate(gw, key, 'images/generations', { prompt: 'a red fox', ...payload });
    expect((await q({ model: 'img-flat' })).json).toEqual({ estimated_micro_usd: 40_000, is_free: false });
    expect((await q({ model: 'img-flat', n: 3, size: '256x256' })).json).toEqual({
      estimated_micro_usd: 120_000,
      is_free: false,
    });
    expect((await q({ model: 'img-sized' })).json).toEqual({ estimated_micro_usd: 40_005, is_free: false }); // default size 1024x1024
    expect((await q({ model: 'img-sized', size: '512x512', n: 2 })).json).toEqual({
      estimated_micro_usd: 36_005,
      is_free: false,
    });
  });

  it('videos: per_second (or per_second_with_audio) of the resolution × duration; defaults are the first offered', async () => {
    const { key } = await gw.account();
    const q = (payload: Record<string, unknown>) =>
      estimate(gw, key, 'videos', { model: 'vid', content: videoText, ...payload });
    expect((await q({})).json).toEqual({ estimated_micro_usd: 5 * 10_000, is_free: false });
    expect((await q({ duration: 10, resolution: '1080p' })).json).toEqual({
      estimated_micro_usd: 10 * 25_000,
      is_free: false,
    });
    expect((await q({ duration: 10, resolution: '1080p', generate_audio: true })).json).toEqual({
      estimated_micro_usd: 10 * 30_000,
      is_free: false,
    });
    expect((await q({ resolution: '720p', generate_audio: true })).json).toEqual({
      estimated_micro_usd: 5 * 15_000,
      is_free: false,
    });
    // An integer per_second; without per_second_with_audio, audio costs the same.
    const flat = (p: Record<string, unknown>) =>
      estimate(gw, key, 'videos', { model: 'vid-flat', content: videoText, ...p });
    expect((await flat({})).json).toEqual({ estimated_micro_usd: 4 * 3_000 + 7, is_free: false });
    expect((await flat({ duration: 8, generate_audio: true })).json).toEqual({
      estimated_micro_usd: 8 * 3_000 + 7,
      is_free: false,
    });
  });

  it('a size, duration or resolution the model does not offer answers 400 naming payload.<field>', async () => {
    const { key } = await gw.account();
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['images/generations', { model: 'img-sized', prompt: 'x', size: '256x256' }, 'payload.size', '256x256'],
      ['videos', { model: 'vid', content: videoText, duration: 7 }, 'payload.duration', '7'],
      ['videos', { model: 'vid', content: videoText, resolution: '4k' }, 'payload.resolution', '4k'],
    ];
    for (const [endpoint, payload, field, value] of cases) {
      const r = await estimate(gw, key, endpoint, payload);
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(r.json.error.code).toBe('invalid_request');
      expect(r.json.error.message).toContain(`'${value}' is not offered`);
      expect(r.json.error.param, JSON.stringify(r.json.error)).toBe(field);
    }
  });
});

describe('is_free', () => {
  it('true for free: true and for all-zero prices (integer or map); false for a tiny price, which rounds up to 1', async () => {
    const { key } = await gw.account();
    const chat = (model: string) => estimate(gw, key, 'chat/completions', chatRequest(model, 'hello'));
    expect((await chat('free-sim')).json).toEqual({ estimated_micro_usd: 0, is_free: true });
    expect((await chat('chat-zero')).json).toEqual({ estimated_micro_usd: 0, is_free: true });
    expect((await estimate(gw, key, 'images/generations', { model: 'img-free', prompt: 'x', n: 4 })).json).toEqual({
      estimated_micro_usd: 0,
      is_free: true,
    });
    expect(
      (await estimate(gw, key, 'images/generations', { model: 'img-zero-map', prompt: 'x', size: '512x512' })).json,
    ).toEqual({
      estimated_micro_usd: 0,
      is_free: true,
    });
    // A few tokens at 1 micro-USD per million: far below one micro-USD, never free.
    expect((await chat('chat-tiny')).json).toEqual({ estimated_micro_usd: 1, is_free: false });
  });
});

describe('the effective discount', () => {
  it('account (user:discount) and group (catalog) discounts compound, rounding up once, in estimates and charges alike', async () => {
    const acct = await gw.account({ balance: 10_000_000, key: { group: 'disc' } });
    const img = () => estimate(gw, acct.key, 'images/generations', { model: 'img-odd', prompt: 'x' });
    // Group only: 1001 × 0.9 = 900.9 → 901.
    expect((await img()).json.estimated_micro_usd).toBe(901);

    const out = cliJson(await cliInProcess(['user:discount', '--email', acct.email, '--percent', '12.5'], gw.env));
    expect(out).toMatchObject({ email: acct.email, discount_percent: 12.5 });
    // 1001 × 0.875 × 0.9 = 788.2875 → 789 (adding the percents, 22.5 %, would give 776).
    await waitUntil(async () => (await img()).json.estimated_micro_usd !== 901, 2_000);
    expect((await img()).json).toEqual({ estimated_micro_usd: 789, is_free: false });
    expect(priced(1001n * M, 12.5, 10)).toBe(789);

    // Videos and chat take the same discount.
    expect(
      (await estimate(gw, acct.key, 'videos', { model: 'vid', content: videoText })).json.estimated_micro_usd,
    ).toBe(priced(50_000n * M, 12.5, 10));
    const messages = [{ role: 'user', content: 'one two three' }];
    const chatEst = await estimate(gw, acct.key, 'chat/completions', { model: 'gpt-sim', messages, max_tokens: 3 });
    const promptEst = BigInt(Math.ceil(Buffer.byteLength(JSON.stringify(messages)) / 4));
    expect(chatEst.json.estimated_micro_usd).toBe(priced(promptEst * 2_000_000n + 3n * 8_000_000n, 12.5, 10));

    // The charge of a real call: its actual usage at the same effective discount.
    const res = await postChat(gw.url, acct.key, { model: 'gpt-sim', messages, max_tokens: 3 });
    expect(res.status).toBe(200);
    await drained(gw);
    const [record] = (await usageRecords(gw.services.db, acct.userId)).filter((r) => r.status_code === 200);
    const actual = BigInt(simPromptTokens(messages)) * 2_000_000n + 3n * 8_000_000n;
    expect(record!.charged_micro_usd).toBe(priced(actual, 12.5, 10));
    expect(record!.charged_micro_usd).toBeLessThan(Math.ceil(Number(actual) / 1e6));
  });

  it('two-decimal percents compound exactly', async () => {
    const acct = await gw.account({ key: { group: 'disc-odd' } });
    const out = cliJson(await cliInProcess(['user:discount', '--email', acct.email, '--percent', '0.01'], gw.env));
    expect(out.discount_percent).toBe(0.01);
    const r = await estimate(gw, acct.key, 'images/generations', { model: 'img-flat', prompt: 'x', n: 7 });
    // 280000 × 0.9999 × 0.6667 = 186,657.33... → 186,658
    expect(r.json.estimated_micro_usd).toBe(priced(280_000n * M, 0.01, 33.33));
    expect(r.json.estimated_micro_usd).toBe(186_658);
  });

  it('user:discount refuses a percent outside 0-100 or with more than two decimals, naming the flag', async () => {
    const acct = await gw.account();
    for (const bad of ['-1', '100.5', '12.345', 'ten']) {
      const r = await cliInProcess(['user:discount', '--email', acct.email, '--percent', bad], gw.env);
      expect(r.code, `${bad}: ${r.stdout}`).not.toBe(0);
      expect(r.stderr).toMatch(/percent/);
    }
  });
});

describe('checks and errors', () => {
  it('an invalid payload answers 400 naming the field as payload.<field>', async () => {
    const { key } = await gw.account();
    const cases: [string, unknown, string][] = [
      ['chat/completions', { model: 'gpt-sim' }, 'payload.messages'],
      ['chat/completions', { model: 'gpt-sim', messages: [{ content: 'x' }] }, 'payload.messages[0].role'],
      [
        'chat/completions',
        { model: 'gpt-sim', messages: [{ role: 'user', content: 'x' }], max_tokens: -1 },
        'payload.max_tokens',
      ],
      [
        'chat/completions',
        { model: 'gpt-sim', messages: [{ role: 'user', content: 'x' }], max_tokens: 'ten' },
        'payload.max_tokens',
      ],
      ['chat/completions', { messages: [{ role: 'user', content: 'x' }] }, 'payload.model'],
      ['images/generations', { model: 'img-flat' }, 'payload.prompt'],
      ['images/generations', { model: 'img-flat', prompt: 'x', n: 11 }, 'payload.n'],
      ['images/generations', { model: 'img-flat', prompt: 'x', n: 1.5 }, 'payload.n'],
      ['videos', { model: 'vid', content: [] }, 'payload.content'],
      ['videos', { model: 'vid', content: videoText, duration: -5 }, 'payload.duration'],
      ['videos', { model: 'vid', content: videoText, surprise: true }, 'payload'],
    ];
    for (const [endpoint, payload, field] of cases) {
      const r = await estimate(gw, key, endpoint, payload);
      expect(r.status, `${field}: ${JSON.stringify(r.json)}`).toBe(400);
      expect(r.json.error.code).toBe('invalid_request');
      expect(r.json.error.param, JSON.stringify(r.json)).toBe(field);
      if (field !== 'payload') expect(r.json.error.message).toContain(field);
    }
  });

  it('a malformed estimate body answers 400 naming endpoint or payload', async () => {
    const { key } = await gw.account();
    const badEndpoint = await postJson(gw, '/v1/estimates', key, { endpoint: 'embeddings', payload: {} });
    expect(badEndpoint.status).toBe(400);
    expect(badEndpoint.json.error.param).toBe('endpoint');
    const noPayload = await postJson(gw, '/v1/estimates', key, { endpoint: 'videos' });
    expect(noPayload.status).toBe(400);
    expect(noPayload.json.error.param).toBe('payload');
    const notJson = await postJson(gw, '/v1/estimates', key, '{nope');
    expect(notJson.status).toBe(400);
  });

  it('an unknown model answers 404, a model of another endpoint 404, a model outside the group 403', async () => {
    const { key } = await gw.account();
    const unknown = await estimate(gw, key, 'chat/completions', chatRequest('no-such-model', 'x'));
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'model_not_found', param: 'model' });
    const wrongEndpoint = await estimate(gw, key, 'images/generations', { model: 'gpt-sim', prompt: 'x' });
    expect(wrongEndpoint.status).toBe(404);
    const basic = await gw.account({ key: { group: 'basic' } });
    const outside = await estimate(gw, basic.key, 'images/generations', { model: 'img-flat', prompt: 'x' });
    expect(outside.status).toBe(403);
    expect(outside.json.error.code).toBe('model_not_allowed');
  });

  it('runs the key, expiry and IP checks', async () => {
    const payload = chatRequest('gpt-sim', 'x');
    const none = await postJson(gw, '/v1/estimates', undefined, { endpoint: 'chat/completions', payload });
    expect(none.status).toBe(401);
    expect((await estimate(gw, 'sk-notakey', 'chat/completions', payload)).status).toBe(401);
    const expired = await gw.account();
    // The API refuses a past expiry: set it in the row, then tell the key cache.
    await gw.services.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('id', '=', expired.keyId)
      .execute();
    await publishKeyChange(gw.services.redis, gw.services.redisKeys.keyInvalidation, expired.keyId);
    await keySeen(gw, expired.key, (k) => k.expiresAt !== null);
    expect((await estimate(gw, expired.key, 'chat/completions', payload)).json.error.code).toBe('key_expired');
    const fenced = await gw.account({ key: { ip_allowlist: ['10.0.0.0/8'] } });
    expect((await estimate(gw, fenced.key, 'chat/completions', payload)).json.error.code).toBe('ip_not_allowed');
  });
});

describe('an estimate charges and reserves nothing', () => {
  it('works with a zero balance, reserves nothing, calls no upstream, and counts one request against the RPM', async () => {
    const broke = await gw.account({
      balance: 0,
      key: { rpm_limit: 10, tpm_limit: 1000, concurrency_limit: 1, total_micro_usd: 1 },
    });
    const huge = { model: 'gpt-sim', messages: [{ role: 'user', content: 'x' }], max_tokens: 1_000_000 };
    gw.sim.resetStats();
    for (let i = 0; i < 5; i++) {
      const r = await estimate(gw, broke.key, 'chat/completions', huge);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.estimated_micro_usd).toBeGreaterThan(8_000_000);
    }
    expect(gw.sim.stats().requests).toBe(0);

    const funded = await gw.account({ balance: 1_000_000, key: { rpm_limit: 7 } });
    for (let i = 0; i < 5; i++)
      expect((await estimate(gw, funded.key, 'chat/completions', chatRequest('gpt-sim', 'x'))).status).toBe(200);
    expect((await gw.services.balances.currentBalance(funded.userId))?.balance).toBe(1_000_000);
    expect(await gw.services.redis.hlen(gw.services.redisKeys.reservations(funded.userId))).toBe(0);
    // Every gateway call counts toward the RPM (the estimates took 5 of the key's 7 requests), no tokens.
    const first = await postChat(gw.url, funded.key, chatRequest('gpt-sim', 'x', { max_tokens: 1 }));
    expect(first.status).toBe(200);
    expect(rateTrio(first.headers, 'Requests')).toMatchObject({ limit: 7, remaining: 1 });
    await drained(gw);
    expect((await usageRecords(gw.services.db, broke.userId)).length).toBe(0);
    expect((await usageRecords(gw.services.db, funded.userId)).length).toBe(1);
  });
});
