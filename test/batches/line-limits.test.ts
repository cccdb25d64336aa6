// The key's limits and money, met by a batch's lines: a line refused for balance, budget or quota
// goes to the error file with its code and is not charged, and the batch goes on; a line that meets
// the key's concurrency or RPM limit waits and runs instead of failing (batches yield to the key's
// interactive traffic).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitError } from 'openai';
import { createKey } from '../../shared/keys/manage-keys.js';
import { postChat, sleep } from '../support/http.js';
import { drained, expectConsistentLedger, usersBalance } from '../support/money.js';
import type { TaskGateway } from '../support/task-gateway.js';
import { chatLine, fileLines, openAi, runBatch, startBatchGateway, uploadLines, waitBatchEnd } from './support.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startBatchGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('money, line by line', () => {
  const refusals = [
    { why: 'balance', balance: 1, key: {}, status: 402, code: 'insufficient_balance' },
    {
      why: 'budget',
      balance: 1_000_000,
      key: { budget: { limit_micro_usd: 1, period: 'total' } },
      status: 402,
      code: 'budget_exceeded',
    },
    { why: 'quota', balance: 1_000_000, key: { daily_micro_usd: 1 }, status: 429, code: 'quota_exceeded' },
  ] as const;
  for (const r of refusals) {
    it(`a line refused for ${r.why} goes to the error file with ${r.code}, uncharged`, async () => {
      const acct = await gw.account({ balance: r.balance, key: r.key });
      const client = openAi(gw, acct.key);
      const batch = await runBatch(client, [chatLine('a', 'hi'), chatLine('b', 'there')]);
      expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 0, failed: 2 } });
      expect(batch.output_file_id).toBeNull();
      const errors = await fileLines(client, batch.error_file_id);
      expect(errors.map((l) => [l.custom_id, l.response.status_code, l.response.body.error.code])).toEqual([
        ['a', r.status, r.code],
        ['b', r.status, r.code],
      ]);
      await drained(gw);
      expect(await expectConsistentLedger(gw.services.db, acct.userId)).toHaveLength(0);
      expect(await usersBalance(gw.services.db, acct.userId)).toBe(r.balance);
    });
  }
});

describe("the key's rate limits", () => {
  it("a line that meets the key's concurrency limit waits and runs: every line completes", async () => {
    const acct = await gw.account({ balance: 1_000_000, key: { concurrency_limit: 1 } });
    const client = openAi(gw, acct.key);
    const batch = await runBatch(
      client,
      [0, 1, 2, 3].map((i) => chatLine(`slow-${i}`, 'slow [[sim:latencyMs=300]]')),
    );
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 4, completed: 4, failed: 0 } });
    expect(batch.error_file_id).toBeNull();
  });

  it("a line that meets the key's RPM limit, spent by interactive calls, waits for it and runs", async () => {
    // 60 a minute: one a second once the minute's allowance is spent. The batch's key is limited;
    // another key of the account uploads and polls, so only the batch and its lines count on it.
    const acct = await gw.account({ balance: 5_000_000, key: { rpm_limit: 60 } });
    const admin = { db: gw.services.db, redis: gw.services.redis, channel: gw.services.redisKeys.keyInvalidation };
    const other = openAi(gw, (await createKey(admin, acct.userId, {})).key);
    const file = await uploadLines(
      other,
      [0, 1, 2].map((i) => chatLine(`line-${i}`, 'hi')),
    );
    let refused: { status: number; text: string } | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await postChat(gw.url, acct.key, chatLine('sync', 'hi').body);
      if (res.status !== 200) refused = res;
    }
    const spentAt = performance.now();
    expect(refused?.status).toBe(429);
    expect(JSON.parse(refused!.text).error.code).toBe('rate_limit_exceeded');

    // The batch is made as soon as the limit lets one call through; its lines find it spent again.
    const client = openAi(gw, acct.key);
    let created: Awaited<ReturnType<typeof client.batches.create>> | undefined;
    while (!created) {
      created = await client.batches
        .create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
        .catch(async (err: unknown) => {
          if (!(err instanceof RateLimitError)) throw err;
          await sleep(100);
          return undefined;
        });
    }
    const batch = await waitBatchEnd(other, created.id);
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 3, failed: 0 } });
    expect(batch.error_file_id).toBeNull();
    // Four calls (the batch's creation, its three lines) at one a second from the limit's end: the
    // lines waited for it, none failed on it.
    expect(performance.now() - spentAt).toBeGreaterThanOrEqual(2_500);
  });
});
