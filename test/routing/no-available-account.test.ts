import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, openAiError, postChat, waitUntil } from '../support/http.js';
import { drained, usageRecords } from '../support/money.js';

// Spec, chat-completions behaviour 2: "When a model has no available account … the next is tried."
// A route rests after 2 failures in 30 s (or at once on a 429's Retry-After) for a minute, far
// longer than the test, so no probe reopens it midway.
const BREAKER = {
  ROUTING_BREAKER_THRESHOLD: '2',
  ROUTING_BREAKER_WINDOW_MS: '30000',
  ROUTING_BREAKER_COOLDOWN_MS: '60000',
};

function catalog(simUrl: string) {
  const provider = (id: string) => ({
    id,
    protocol: 'openai',
    base_url: `${simUrl}/v1`,
    api_key: 'sim-upstream-secret',
  });
  const cheap = { input_per_mtok: 1_000_000, output_per_mtok: 1_000_000 };
  return {
    providers: [provider('alpha'), provider('beta')],
    models: [
      {
        // Two routes: both must rest before the model has no available account.
        id: 'flaky',
        endpoints: ['chat/completions'],
        routes: [
          { provider: 'alpha', upstream_model: 'up-flaky' },
          { provider: 'beta', upstream_model: 'up-flaky' },
        ],
        pricing: { input_per_mtok: 10_000_000, output_per_mtok: 30_000_000 },
        quality: 90,
        auto: true,
        max_output_tokens: 100,
      },
      {
        id: 'limited',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'alpha', upstream_model: 'up-limited' }],
        pricing: cheap,
        max_output_tokens: 100,
      },
      {
        id: 'steady',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'alpha', upstream_model: 'up-steady' }],
        pricing: cheap,
        quality: 50,
        auto: true,
        max_output_tokens: 100,
      },
    ],
    groups: [{ id: 'default', models: ['*'] }],
  };
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    catalog,
    env: BREAKER,
    sim: {
      apiKey: 'sim-upstream-secret',
      models: { 'up-flaky': { fault: 'error500' }, 'up-limited': { fault: 'error429', retryAfterSeconds: 30 } },
    },
  });
});
afterAll(() => gw?.close());

/**
 * Waits until these routes (`<provider>/<account>:<upstream model>`) read as resting: the failures
 * that rest them are reported to Redis after the client has its answer.
 */
async function resting(...routes: string[]) {
  await waitUntil(async () => {
    const states = await gw.services.routing.health.states(routes);
    return routes.every((r) => states.get(r) === 'open');
  }, 2_000);
}

async function preset(email: string, slug: string, models: string[]) {
  const { token } = await signIn(gw, email);
  const reply = await api(gw, 'POST', '/presets', { token, body: { slug, models } });
  expect(reply.status, JSON.stringify(reply.json)).toBe(201);
}

describe('a model with no available account', () => {
  it('once every route of a model rests, the model is skipped without an upstream call: the next model answers, the skip recorded at no charge', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    await preset(acct.email, 'flaky-first', ['flaky', 'steady']);
    // Two failing calls: each fails on both routes, and the second failure rests each route.
    for (let i = 0; i < 2; i++) expect((await postChat(gw.url, acct.key, chatRequest('flaky', 'hi'))).status).toBe(502);
    await resting('alpha/default:up-flaky', 'beta/default:up-flaky');

    gw.sim.resetStats();
    const alone = await postChat(gw.url, acct.key, chatRequest('flaky', 'hi'));
    expect(alone.status).toBe(503);
    expect(openAiError(alone).code).toBe('upstream_unavailable');
    expect(alone.headers.get('retry-after')).toMatch(/^\d+$/);

    const res = await postChat(gw.url, acct.key, chatRequest('@preset/flaky-first', 'hi'), {
      'x-request-id': 'rest-1',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-service-model')).toBe('steady');
    // auto:quality ranks 'flaky' first; it is skipped the same way.
    const auto = await postChat(gw.url, acct.key, chatRequest('auto', 'hi'));
    expect(auto.status, auto.text).toBe(200);
    expect(auto.headers.get('x-service-model')).toBe('steady');
    expect(gw.sim.stats().byModel).toEqual({ 'up-steady': 2 });

    await drained(gw);
    const records = (await usageRecords(gw.services.db, acct.userId)).filter((r) => r.request_id.startsWith('rest-1'));
    expect(records.map((r) => [r.request_id, r.model, r.status_code, r.error_code, r.charged_micro_usd > 0])).toEqual([
      ['rest-1', 'flaky', 503, 'upstream_unavailable', false],
      ['rest-1-fb1', 'steady', 200, null, true],
    ]);
  });

  it("a 429 rests the route at once for its Retry-After: the next call goes straight to the preset's next model", async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    await preset(acct.email, 'limited-first', ['limited', 'steady']);
    gw.sim.resetStats();
    for (let i = 0; i < 3; i++) {
      const res = await postChat(gw.url, acct.key, chatRequest('@preset/limited-first', 'hi'));
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('x-service-model')).toBe('steady');
      if (i === 0) await resting('alpha/default:up-limited');
    }
    expect(gw.sim.stats().byModel).toEqual({ 'up-limited': 1, 'up-steady': 3 });
  });
});
