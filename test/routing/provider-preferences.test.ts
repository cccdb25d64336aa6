import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, openAiError, postChat } from '../support/http.js';
import { drained, usageRecords } from '../support/money.js';

// The `provider` routing field (OpenRouter's): `order` puts providers first, `allow_fallbacks: false`
// keeps to them. One model served by three providers, each on an upstream model of its own, so the
// simulator can fail one provider and tell which were called.
const UPSTREAM = { alpha: 'up-alpha', beta: 'up-beta', gamma: 'up-gamma' } as const;

function catalog(simUrl: string) {
  const provider = (id: string) => ({
    id,
    protocol: 'openai',
    base_url: `${simUrl}/v1`,
    api_key: 'sim-upstream-secret',
  });
  return {
    providers: [provider('alpha'), provider('beta'), provider('gamma')],
    models: [
      {
        id: 'trio',
        endpoints: ['chat/completions'],
        routes: Object.entries(UPSTREAM).map(([p, upstream]) => ({ provider: p, upstream_model: upstream })),
        pricing: { input_per_mtok: 1_000_000, output_per_mtok: 1_000_000 },
        max_output_tokens: 100,
      },
    ],
    groups: [{ id: 'default', models: ['*'] }],
  };
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ catalog, sim: { apiKey: 'sim-upstream-secret' } });
});
afterAll(() => gw?.close());
beforeEach(() => {
  for (const upstream of Object.values(UPSTREAM)) gw.sim.setModel(upstream, {});
  gw.sim.resetStats();
});

const failing = (...upstreams: string[]) => {
  for (const upstream of upstreams) gw.sim.setModel(upstream, { fault: 'error500' });
};
const calls = () => gw.sim.stats().byModel;

/** The provider whose answer reached the client, from the call's usage record. */
async function servedBy(userId: string): Promise<string | null> {
  await drained(gw);
  const records = await usageRecords(gw.services.db, userId);
  const last = records.at(-1)!;
  expect(last.status_code).toBe(200);
  return last.provider;
}

describe('provider.order', () => {
  it('puts the listed providers first, in the order given; the others stay behind them as fallbacks', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const call = async (provider?: unknown) => {
      const res = await postChat(gw.url, acct.key, chatRequest('trio', 'hi', provider ? { provider } : {}));
      expect(res.status, res.text).toBe(200);
      return servedBy(acct.userId);
    };
    expect(await call()).toBe('alpha'); // the catalog's order
    expect(await call({ order: ['gamma', 'beta'] })).toBe('gamma');
    expect(await call({ order: ['beta'] })).toBe('beta');

    failing(UPSTREAM.gamma);
    gw.sim.resetStats();
    expect(await call({ order: ['gamma', 'beta'] })).toBe('beta');
    expect(calls()).toEqual({ [UPSTREAM.gamma]: 1, [UPSTREAM.beta]: 1 });

    // Fallbacks are allowed by default: past the listed providers, the model's other routes.
    failing(UPSTREAM.beta);
    gw.sim.resetStats();
    expect(await call({ order: ['gamma', 'beta'] })).toBe('alpha');
    expect(calls()).toEqual({ [UPSTREAM.gamma]: 1, [UPSTREAM.beta]: 1, [UPSTREAM.alpha]: 1 });
  });

  it('names an unknown provider with a 400 and calls no upstream', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const res = await postChat(
      gw.url,
      acct.key,
      chatRequest('trio', 'hi', { provider: { order: ['gamma', 'nowhere'] } }),
    );
    expect(res.status).toBe(400);
    expect(openAiError(res)).toMatchObject({ code: 'invalid_request', param: 'provider.order[1]' });
    expect(gw.sim.stats().requests).toBe(0);
  });
});

describe('provider.allow_fallbacks', () => {
  it('false: only the providers in order are tried; when they fail the call fails, and the others are never called', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const only = { order: ['gamma', 'beta'], allow_fallbacks: false };
    const served = await postChat(gw.url, acct.key, chatRequest('trio', 'hi', { provider: only }));
    expect(served.status, served.text).toBe(200);
    expect(await servedBy(acct.userId)).toBe('gamma');

    failing(UPSTREAM.gamma, UPSTREAM.beta);
    gw.sim.resetStats();
    const refused = await postChat(gw.url, acct.key, chatRequest('trio', 'hi', { provider: only }));
    expect(refused.status).toBe(502);
    expect(openAiError(refused).code).toBe('upstream_error');
    expect(calls()).toEqual({ [UPSTREAM.gamma]: 1, [UPSTREAM.beta]: 1 });

    // The same call allowing fallbacks reaches alpha.
    const fallback = await postChat(
      gw.url,
      acct.key,
      chatRequest('trio', 'hi', { provider: { ...only, allow_fallbacks: true } }),
    );
    expect(fallback.status, fallback.text).toBe(200);
    expect(await servedBy(acct.userId)).toBe('alpha');
    // The routing field is the gateway's: no upstream sees it.
    expect(JSON.stringify(gw.sim.stats().lastRequestBody)).not.toContain('allow_fallbacks');
  });
});

describe("a preset's preferred providers", () => {
  it('order the routes of its models; the request’s provider field overrides them', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const { token } = await signIn(gw, acct.email);
    const created = await api(gw, 'POST', '/presets', {
      token,
      body: { slug: 'beta-first', models: ['trio'], preferred_providers: { order: ['beta'] } },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const call = async (extra: Record<string, unknown> = {}) => {
      const res = await postChat(gw.url, acct.key, chatRequest('@preset/beta-first', 'hi', extra));
      expect(res.status, res.text).toBe(200);
      return servedBy(acct.userId);
    };
    expect(await call()).toBe('beta');
    expect(await call({ provider: { order: ['gamma'] } })).toBe('gamma');
    failing(UPSTREAM.beta);
    expect(await call()).toBe('alpha');
  });
});
