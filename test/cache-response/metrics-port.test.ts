import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { spawnLogged, type LoggedProcess } from '../support/logged-process.js';
import { writeCatalogFile } from '../support/processes.js';
import { ask, cacheCatalog, chat, waitForEntries } from './support.js';

// The cache's counters as an operator scrapes them: from a real API process's own metrics port
// (METRICS_PORT), never its public one.
let gw: TestGateway;
let apiProcess: LoggedProcess;
let removeCatalog: () => Promise<void>;

beforeAll(async () => {
  gw = await startTestGateway({ catalog: cacheCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  const catalog = await writeCatalogFile(gw.sim.url, cacheCatalog);
  removeCatalog = catalog.remove;
  apiProcess = await spawnLogged('api', {
    DATABASE_URL: gw.env.DATABASE_URL!,
    REDIS_PREFIX: gw.env.REDIS_PREFIX!,
    CATALOG_FILE: catalog.file,
    ACCESS_LOG: 'false',
  });
});

afterAll(async () => {
  await apiProcess?.stop();
  await removeCatalog?.();
  await gw?.close();
});

async function scrape(): Promise<string> {
  const res = await fetch(`${apiProcess.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

const counter = (text: string, labels: string) =>
  Number(new RegExp(`^gateway_response_cache_total\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

describe('the response cache counters on METRICS_PORT', () => {
  it('count hits, misses and bypasses per model, as the API process answered them', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: { cache_ttl_seconds: 600 } });
    const at = { ...gw, url: apiProcess.url };
    const before = await scrape();
    const result = (text: string, model: string, r: string) => counter(text, `model="${model}",result="${r}"`);

    expect((await chat(at, acct.key, ask('free-sim', 'scraped'))).cache).toBe('MISS');
    await waitForEntries(gw, acct.userId, 1);
    expect((await chat(at, acct.key, ask('free-sim', 'scraped'))).cache).toBe('HIT');
    expect((await chat(at, acct.key, ask('free-sim', 'scraped', { stream: true }))).cache).toBe('HIT');
    expect((await chat(at, acct.key, ask('free-sim', 'scraped'), { 'X-Service-Cache-TTL': '0' })).cache).toBe('BYPASS');
    expect((await chat(at, acct.key, ask('gpt-sim', 'scraped', { n: 2 }))).cache).toBe('BYPASS');

    const after = await scrape();
    expect(after).toContain('# TYPE gateway_response_cache_total counter');
    expect(result(after, 'free-sim', 'hit') - result(before, 'free-sim', 'hit')).toBe(2);
    expect(result(after, 'free-sim', 'miss') - result(before, 'free-sim', 'miss')).toBe(1);
    expect(result(after, 'free-sim', 'bypass') - result(before, 'free-sim', 'bypass')).toBe(1);
    expect(result(after, 'gpt-sim', 'bypass') - result(before, 'gpt-sim', 'bypass')).toBe(1);
    expect(result(after, 'gpt-sim', 'hit')).toBe(result(before, 'gpt-sim', 'hit'));
    // Not on the public port.
    expect((await fetch(`${apiProcess.url}/metrics`)).status).toBe(404);
  });
});
