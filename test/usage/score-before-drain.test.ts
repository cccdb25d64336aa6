import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/log.js';
import { startUsageDrainer, type UsageDrainer } from '../../workers/usage-drain.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';

// A score sent right after its call, while the call's usage record still waits in the usage queue
// (here: with the drain stopped until the score has waited a while), is accepted once it lands.
let gw: TestGateway;
let drainer: UsageDrainer | undefined;

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.drainer.stop();
});
afterAll(async () => {
  await drainer?.stop();
  await gw?.close();
});

const score = (key: string, body: unknown) =>
  fetch(`${gw.url}/v1/scores`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('POST /v1/scores before the usage record landed', () => {
  it('waits for a queued record of the account and accepts; a missing or foreign request still answers 404 at once', async () => {
    const owner = await gw.account({ balance: 1_000_000 });
    const stranger = await gw.account({ balance: 1_000_000 });
    expect(
      (
        await postChat(gw.url, owner.key, chatRequest('gpt-sim', 'rate me', { max_tokens: 2 }), {
          'x-request-id': 'req-early',
          'x-session-id': 'sess-early',
        })
      ).status,
    ).toBe(200);
    expect(await gw.services.redis.llen(gw.services.redisKeys.usageQueue)).toBe(1);

    let settled = false;
    const early = score(owner.key, { request_id: 'req-early', name: 'helpful', value: 1 }).finally(
      () => (settled = true),
    );
    const bySession = score(owner.key, { session_id: 'sess-early', name: 'session.ok', value: 2 });
    for (const [key, id] of [
      [stranger.key, 'req-early'],
      [owner.key, 'req-none'],
    ] as const) {
      const began = performance.now();
      expect((await score(key, { request_id: id, name: 'x', value: 1 })).status).toBe(404);
      expect(performance.now() - began).toBeLessThan(1_000);
    }
    expect(settled).toBe(false);

    const log = createLogger('silent');
    drainer = await startUsageDrainer({
      db: gw.services.db,
      redis: gw.services.config.redis,
      keys: gw.services.redisKeys,
      batch: 500,
      log,
      idleMs: 20,
    });
    const res = await early;
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await bySession).status).toBe(200);
    const rows = await gw.services.db
      .selectFrom('scores')
      .select(['request_id', 'session_id', 'name'])
      .where('user_id', '=', owner.userId)
      .orderBy('name')
      .execute();
    expect(rows).toEqual([
      { request_id: 'req-early', session_id: null, name: 'helpful' },
      { request_id: null, session_id: 'sess-early', name: 'session.ok' },
    ]);
  });
});
