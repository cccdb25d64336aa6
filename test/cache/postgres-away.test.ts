import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { insertPreset } from '../../shared/db/presets.js';
import { writeTemplateParts } from '../../shared/db/prompt-templates.js';
import { cloneTemplate } from '../support/databases.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, sleep } from '../support/http.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// A gateway whose Postgres goes away keeps answering the keys it has cached, with their presets
// and prompt templates, long past every cache's TTL: the last values are served when a refresh fails.
let gw: TestGateway;
let proxy: TcpProxy;
beforeAll(async () => {
  const direct = new URL(await cloneTemplate(inject('templateDb'), inject('runId')));
  proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432));
  const proxied = new URL(direct);
  proxied.host = `127.0.0.1:${proxy.port}`;
  gw = await startTestGateway({ env: { DATABASE_URL: proxied.toString(), KEY_CACHE_TTL_MS: '500' } });
});
afterAll(async () => {
  proxy.restore();
  await gw.close();
  await proxy.close();
});

describe('Postgres away', () => {
  it('a cached key is served with its preset and template, past every TTL; an unknown key answers 503', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const stranger = await gw.account({ balance: 10_000_000 });
    await insertPreset(gw.services.db, acct.userId, 'house', {
      models: ['gpt-sim'],
      strategy: 'ordered',
      weights: null,
      preferred_providers: null,
    });
    await gw.services.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('prompt_templates')
        .values({ user_id: acct.userId, name: 'house-style' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await writeTemplateParts(trx, id, [{ label: 'a', text: 'Be kind.', weight: 1 }], [acct.keyId]);
    });
    const call = () => postChat(gw.url, acct.key, chatRequest('@preset/house', 'hi'));
    const systemPrompt = () =>
      (gw.sim.stats().lastRequestBody as { messages: Array<{ content: string }> }).messages[0]!.content;

    expect((await call()).status).toBe(200);
    expect(systemPrompt()).toBe('Be kind.');

    proxy.cut();
    // Past fresh and stale of every cache (keys 2 × 500 ms, presets and templates 2 × 2 s).
    await sleep(4_200);
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await call();
      expect(res.status, res.text).toBe(200);
      expect(systemPrompt()).toBe('Be kind.');
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    // A key this process never saw has nothing to fall back on.
    expect((await postChat(gw.url, stranger.key, chatRequest('gpt-sim', 'hi'))).status).toBe(503);
  });
});
