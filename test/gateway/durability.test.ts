import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/log.js';
import { redisKeys } from '../../shared/redis/keys.js';
import { usageDrained } from '../../shared/usage/drain.js';
import { startUsageDrainer } from '../../workers/usage-drain.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { postChat, waitUntil } from '../support/http.js';
import { expectConsistentLedger, pricedMicroUsd, usageRecords, usersBalance } from '../support/money.js';
import { spawnApi, writeCatalogFile, type ApiProcess } from '../support/processes.js';

// An API process without any worker: usage it records sits in Redis until a drainer runs. A call
// whose response completed must survive the process being killed right after it.
let gw: TestGateway;
let api: ApiProcess | undefined;
let removeCatalog: () => Promise<void>;
// Nested under the harness prefix (so gw.close() cleans it) but a different stream: the harness's
// own in-process drainer does not see it.
let prefix: string;

beforeAll(async () => {
  gw = await startTestGateway();
  prefix = `${gw.env.REDIS_PREFIX}durable:`;
  const catalog = await writeCatalogFile(gw.sim.url);
  removeCatalog = catalog.remove;
  api = await spawnApi({ DATABASE_URL: gw.env.DATABASE_URL!, REDIS_PREFIX: prefix, CATALOG_FILE: catalog.file });
});
afterAll(async () => {
  await api?.stop();
  await removeCatalog?.();
  await gw?.close();
});

const GPT_SIM = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };

describe('durability', () => {
  it('every completed call is recorded and charged although the API process was SIGKILLed', async () => {
    const funds = 1_000_000;
    const acct = await gw.account({ balance: funds });
    const calls = Array.from({ length: 8 }, (_, i) => ({
      id: `durable-${i}`,
      words: i + 1,
      maxTokens: 5 + i,
      stream: i % 2 === 1,
    }));
    const results = await Promise.all(
      calls.map((c) =>
        postChat(
          api!.url,
          acct.key,
          {
            model: 'gpt-sim',
            messages: [{ role: 'user', content: Array(c.words).fill('word').join(' ') }],
            max_tokens: c.maxTokens,
            stream: c.stream,
          },
          { 'x-request-id': c.id },
        ),
      ),
    );
    await api!.stop('SIGKILL');
    for (const [i, res] of results.entries()) {
      expect(res.status).toBe(200);
      if (calls[i]!.stream) expect(res.text.endsWith('data: [DONE]\n\n')).toBe(true);
    }
    expect(api!.child.signalCode).toBe('SIGKILL');
    expect(await usageRecords(gw.services.db, acct.userId)).toEqual([]); // nothing drained yet

    const keys = redisKeys(prefix);
    const drainer = await startUsageDrainer({
      db: gw.services.db,
      redis: gw.services.config.redis,
      keys,
      batch: 100,
      log: createLogger('silent'),
      idleMs: 20,
    });
    try {
      await waitUntil(() => usageDrained(gw.services.redis, keys), 5_000);
    } finally {
      await drainer.stop();
    }

    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records.map((r) => r.request_id).sort()).toEqual(calls.map((c) => c.id).sort());
    let total = 0;
    for (const c of calls) {
      const cost = pricedMicroUsd(GPT_SIM, 3 + (3 + c.words), c.maxTokens);
      total += cost;
      expect(
        records.find((r) => r.request_id === c.id),
        c.id,
      ).toMatchObject({
        status_code: 200,
        stream: c.stream,
        usage_estimated: false,
        input_tokens: 3 + (3 + c.words),
        output_tokens: c.maxTokens,
        charged_micro_usd: cost,
      });
    }
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(funds - total);
    expect(await expectConsistentLedger(gw.services.db, acct.userId)).toHaveLength(calls.length);
    expect(Number(await gw.services.redis.get(keys.undrained(acct.userId)))).toBe(0);
  });
});
