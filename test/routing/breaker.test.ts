import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
import { spawnApi, writeCatalogFile, type ApiProcess } from '../support/processes.js';
import { routingCatalog, SIM_MODELS } from './routing-catalog.js';

// Two API processes share route health through Redis: failures seen by one rest the route for both.
let gw: TestGateway;
let apis: ApiProcess[] = [];
let removeCatalog: () => Promise<void>;
const BREAKER = {
  ROUTING_BREAKER_THRESHOLD: '2',
  ROUTING_BREAKER_WINDOW_MS: '30000',
  ROUTING_BREAKER_COOLDOWN_MS: '1000',
};

beforeAll(async () => {
  gw = await startTestGateway({
    catalog: routingCatalog,
    sim: { apiKey: 'sim-upstream-secret', models: SIM_MODELS },
    env: BREAKER,
  });
  const catalog = await writeCatalogFile(gw.sim.url, routingCatalog);
  removeCatalog = catalog.remove;
  const env = {
    DATABASE_URL: gw.env.DATABASE_URL!,
    REDIS_PREFIX: gw.env.REDIS_PREFIX!,
    CATALOG_FILE: catalog.file,
    ...BREAKER,
  };
  apis = await Promise.all([spawnApi(env), spawnApi(env)]);
});
afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  await removeCatalog?.();
  await gw?.close();
});

describe('route health across processes', () => {
  it('rests a failing route for every process, skips it without calling it, and brings it back after a successful probe', async () => {
    const acct = await gw.account({ balance: 20_000_000 });
    const session = await signIn(gw, acct.email);
    expect(
      (
        await api(gw, 'POST', '/presets', {
          token: session.token,
          body: { slug: 'flaky-first', models: ['middle', 'good'] },
        })
      ).status,
    ).toBe(201);
    const call = (i: number) =>
      postChat(apis[i]!.url, acct.key, chatRequest('@preset/flaky-first', 'hi', { max_tokens: 4 }));

    gw.sim.setModel('up-mid', { fault: 'error500' });
    for (let i = 0; i < 2; i++) {
      const res = await call(0);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-service-model')).toBe('good');
    }
    gw.sim.resetStats();
    const skipped = await call(1);
    expect(skipped.headers.get('x-service-model')).toBe('good');
    expect(gw.sim.stats().byModel['up-mid'] ?? 0).toBe(0);

    gw.sim.setModel('up-mid', {});
    // After the cooldown one process probes the route, and a success closes it for both.
    await waitUntil(async () => (await call(1)).headers.get('x-service-model') === 'middle', 5_000, 100);
    await waitUntil(async () => (await call(0)).headers.get('x-service-model') === 'middle', 3_000, 100);
  });
});
