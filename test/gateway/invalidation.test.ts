import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, openAiError, postChat, sleep } from '../support/http.js';
import { cliJson, runCli, startApisBeside, type ApiProcess, type ApisBeside } from '../support/processes.js';

// Two API processes against one database and Redis: a key changed by the operator CLI must be
// refused by both within a second, although each holds it in its in-memory key cache.
let gw: TestGateway;
let beside: ApisBeside;
let apis: ApiProcess[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  gw = await startTestGateway();
  // Far longer than the test: only the invalidation message can make the processes forget a key.
  beside = await startApisBeside(gw, 2, { KEY_CACHE_TTL_MS: '600000' });
  ({ apis, env } = beside);
});
afterAll(async () => {
  await beside?.stop();
  await gw?.close();
});

const call = (api: ApiProcess, key: string) => postChat(api.url, key, chatRequest('gpt-sim', 'hi', { max_tokens: 1 }));

/** Polls every process every 50 ms until each answers `status`; returns the ms until the last one did. */
async function answeredWithin(key: string, status: number, limitMs: number): Promise<number> {
  const start = performance.now();
  const pending = new Set(apis);
  while (pending.size > 0) {
    for (const api of [...pending]) if ((await call(api, key)).status === status) pending.delete(api);
    if (pending.size === 0) break;
    if (performance.now() - start > limitMs)
      throw new Error(`${pending.size} process(es) do not answer ${status} after ${limitMs} ms`);
    await sleep(50);
  }
  return performance.now() - start;
}

describe('key changes reach every API process', () => {
  it.each([
    ['key:revoke', 401, 'invalid_api_key'],
    ['key:disable', 403, 'key_disabled'],
  ])('%s: both processes refuse the key within 1 s', async (command, status, code) => {
    const acct = await gw.account({ balance: 1_000_000 });
    // Warm both key caches, several times so each process surely holds the key.
    for (const api of apis) for (let i = 0; i < 3; i++) expect((await call(api, acct.key)).status).toBe(200);

    const out = cliJson(await runCli([command, '--key-id', acct.keyId], env));
    expect(out).toMatchObject({ id: acct.keyId, status: command === 'key:revoke' ? 'revoked' : 'disabled' });
    const elapsed = await answeredWithin(acct.key, status, 1_000);
    expect(elapsed).toBeLessThan(1_000);
    for (const api of apis) expect(openAiError(await call(api, acct.key)).code).toBe(code);
    if (command === 'key:disable') {
      cliJson(await runCli(['key:enable', '--key-id', acct.keyId], env));
      expect(await answeredWithin(acct.key, 200, 1_000)).toBeLessThan(1_000); // and back
    }
  });
});
