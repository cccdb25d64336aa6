import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { drained, usageRecords } from '../support/money.js';

// A preset's strategy decides the order its models are tried in: `cost` (lowest list price first),
// `latency` (lowest recent time to first token first), `weighted` (a random order by weight); the
// models after the first stay fallbacks. Three models, listed dearest first, each on its own
// upstream model so the simulator can fail or slow one.
const MODELS = {
  dear: { price: { input_per_mtok: 10_000_000, output_per_mtok: 30_000_000 }, upstream: 'up-dear' },
  mid: { price: { input_per_mtok: 2_000_000, output_per_mtok: 4_000_000 }, upstream: 'up-mid' },
  cheap: { price: { input_per_mtok: 1_000_000, output_per_mtok: 1_000_000 }, upstream: 'up-cheap' },
};

function catalog(simUrl: string) {
  return {
    providers: [{ id: 'alpha', protocol: 'openai', base_url: `${simUrl}/v1`, api_key: 'sim-upstream-secret' }],
    models: Object.entries(MODELS).map(([id, m]) => ({
      id,
      endpoints: ['chat/completions'],
      routes: [{ provider: 'alpha', upstream_model: m.upstream }],
      pricing: m.price,
      max_output_tokens: 100,
    })),
    groups: [{ id: 'default', models: ['*'] }],
  };
}

let gw: TestGateway;
let key: string;
let userId: string;
let token: string;
beforeAll(async () => {
  gw = await startTestGateway({ catalog, sim: { apiKey: 'sim-upstream-secret' } });
  const acct = await gw.account({ balance: 100_000_000 });
  ({ key, userId } = acct);
  ({ token } = await signIn(gw, acct.email));
});
afterAll(() => gw?.close());
beforeEach(() => {
  for (const m of Object.values(MODELS)) gw.sim.setModel(m.upstream, {});
});

async function preset(body: Record<string, unknown>) {
  const reply = await api(gw, 'POST', '/presets', { token, body });
  expect(reply.status, JSON.stringify(reply.json)).toBe(201);
}

/** The model that answered a call of the preset. */
async function answeredBy(slug: string, extra: Record<string, unknown> = {}): Promise<string | null> {
  const res = await postChat(gw.url, key, chatRequest(`@preset/${slug}`, 'hi', extra));
  expect(res.status, res.text).toBe(200);
  return res.headers.get('x-service-model');
}

describe('preset strategy cost', () => {
  it('tries the models by list price, lowest first, whatever their listed order; a failing one hands over to the next cheapest', async () => {
    await preset({ slug: 'by-cost', models: ['dear', 'mid', 'cheap'], strategy: 'cost' });
    expect(await answeredBy('by-cost')).toBe('cheap');

    gw.sim.setModel(MODELS.cheap.upstream, { fault: 'error500' });
    const res = await postChat(gw.url, key, chatRequest('@preset/by-cost', 'hi'), { 'x-request-id': 'cost-fb' });
    expect(res.headers.get('x-service-model')).toBe('mid');
    await drained(gw);
    const records = (await usageRecords(gw.services.db, userId)).filter((r) => r.request_id.startsWith('cost-fb'));
    expect(records.map((r) => [r.request_id, r.model, r.status_code])).toEqual([
      ['cost-fb', 'cheap', 500],
      ['cost-fb-fb1', 'mid', 200],
    ]);
  });
});

describe('preset strategy latency', () => {
  it('tries the model with the lowest recent time to first token first', async () => {
    // Samples from real streamed calls: 'mid' answers at once, the others slowly.
    gw.sim.setModel(MODELS.cheap.upstream, { latencyMs: 400 });
    gw.sim.setModel(MODELS.dear.upstream, { latencyMs: 400 });
    for (const model of Object.keys(MODELS)) {
      const res = await postChat(gw.url, key, chatRequest(model, 'hi', { stream: true }));
      expect(res.status).toBe(200);
    }
    await gw.services.routing.latency.flush(); // (what the tracker does every second)
    await preset({ slug: 'by-latency', models: ['cheap', 'dear', 'mid'], strategy: 'latency' });
    expect(await answeredBy('by-latency')).toBe('mid');
    // The listed order and the price would both have chosen 'cheap'.
    await preset({ slug: 'listed', models: ['cheap', 'dear', 'mid'] });
    gw.sim.setModel(MODELS.cheap.upstream, {});
    expect(await answeredBy('listed')).toBe('cheap');
  });
});

describe('preset strategy weighted', () => {
  it('picks the first model by weight: a zero weight is never first but stays a fallback', async () => {
    await preset({ slug: 'zero-first', models: ['cheap', 'mid'], strategy: 'weighted', weights: [0, 1] });
    for (let i = 0; i < 10; i++) expect(await answeredBy('zero-first')).toBe('mid');
    gw.sim.setModel(MODELS.mid.upstream, { fault: 'error500' });
    expect(await answeredBy('zero-first')).toBe('cheap');
  });

  it('spreads first picks in proportion to the weights', async () => {
    await preset({ slug: 'one-to-three', models: ['cheap', 'mid'], strategy: 'weighted', weights: [1, 3] });
    let cheapFirst = 0;
    for (let i = 0; i < 80; i++) if ((await answeredBy('one-to-three', { max_tokens: 1 })) === 'cheap') cheapFirst++;
    // Expected 20 of 80 (σ ≈ 3.9); the listed order would give 80, an even split 40.
    expect(cheapFirst).toBeGreaterThanOrEqual(6);
    expect(cheapFirst).toBeLessThanOrEqual(36);
  });

  it('needs one weight per model', async () => {
    const reply = await api(gw, 'POST', '/presets', {
      token,
      body: { slug: 'unweighted', models: ['cheap', 'mid'], strategy: 'weighted' },
    });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error_code: 'invalid_request', param: 'weights' });
  });
});
