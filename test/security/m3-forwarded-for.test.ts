// M3: behind appending proxies the left-most X-Forwarded-For entry is whatever the client wrote.
// With TRUST_PROXY_HOPS = n the client is the n-th entry from the right (TRUST_PROXY=true is 1 hop),
// on the node:http routes and the Koa routes alike: a forged left-most entry neither passes a key's
// IP allowlist nor escapes a per-address throttle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, type Json } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { controlClock, errorOf, keyUsage } from '../support/limits.js';

const clock = controlClock();
let oneHop: TestGateway;
let twoHops: TestGateway;
beforeAll(async () => {
  [oneHop, twoHops] = await Promise.all([
    startTestGateway({ clock, env: { TRUST_PROXY: 'true', SIGNIN_IP_LIMIT: '3' } }),
    startTestGateway({ env: { TRUST_PROXY_HOPS: '2' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([oneHop?.close(), twoHops?.close()]);
});

const ALLOWED = '10.1.2.3';
const ATTACKER = '198.51.100.5';
const via = (xff: string) => ({ 'x-forwarded-for': xff });

async function models(gw: TestGateway, key: string, headers: Record<string, string>) {
  const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Json };
}

describe('a key IP allowlist behind trusted proxies', () => {
  it('one hop: a forged left-most address is refused on the node:http route and on a Koa route', async () => {
    const { key } = await oneHop.account({ balance: 1_000_000, key: { ip_allowlist: [ALLOWED] } });
    // The client wrote ALLOWED; the proxy appended the address the request really came from.
    const forged = via(`${ALLOWED}, ${ATTACKER}`);
    const chat = await postChat(oneHop.url, key, chatRequest('gpt-sim', 'hi', { max_tokens: 2 }), forged);
    expect(chat.status, chat.text).toBe(403);
    expect(errorOf(chat)).toMatchObject({ code: 'ip_not_allowed', message: expect.stringContaining(ATTACKER) });
    const listed = await models(oneHop, key, forged);
    expect(listed.status).toBe(403);
    expect(listed.json.error.code).toBe('ip_not_allowed');

    // The allowed client, whatever it wrote itself, is let in.
    const genuine = via(`${ATTACKER}, ${ALLOWED}`);
    expect((await postChat(oneHop.url, key, chatRequest('gpt-sim', 'hi', { max_tokens: 2 }), genuine)).status).toBe(
      200,
    );
    expect((await models(oneHop, key, genuine)).status).toBe(200);
  });

  it('two hops: the second entry from the right is the client; the inner proxy is not', async () => {
    const { key } = await twoHops.account({ balance: 1_000_000, key: { ip_allowlist: [ALLOWED] } });
    const innerProxy = '172.16.0.9';
    for (const xff of [`${ALLOWED}, ${ATTACKER}, ${innerProxy}`, `${ALLOWED},${ALLOWED}, ${ATTACKER}, ${innerProxy}`]) {
      expect(
        (await postChat(twoHops.url, key, chatRequest('gpt-sim', 'hi', { max_tokens: 2 }), via(xff))).status,
        xff,
      ).toBe(403);
      expect((await models(twoHops, key, via(xff))).status, xff).toBe(403);
    }
    const genuine = via(`${ATTACKER}, ${ALLOWED}, ${innerProxy}`);
    expect((await postChat(twoHops.url, key, chatRequest('gpt-sim', 'hi', { max_tokens: 2 }), genuine)).status).toBe(
      200,
    );
    expect((await models(twoHops, key, genuine)).status).toBe(200);
    // Fewer entries than hops: the left-most is the best there is.
    expect((await models(twoHops, key, via(ALLOWED))).status).toBe(200);
  });
});

describe('per-address throttles behind one trusted proxy', () => {
  it('the key-usage lookup (10 per minute per address) is not escaped by rotating the left-most entry', async () => {
    clock.freeze();
    try {
      const keys = await Promise.all([1, 2, 3, 4].map(() => oneHop.account()));
      const rotating = (i: number) => via(`192.0.2.${i + 1}, 203.0.113.77`);
      for (let i = 0; i < 10; i++) expect((await keyUsage(oneHop, keys[i % 4]!.key, rotating(i))).status).toBe(200);
      const refused = await keyUsage(oneHop, keys[0]!.key, rotating(10));
      expect(refused.status).toBe(429);
      expect(errorOf(refused).message).toMatch(/address/);
      // Another client behind the same proxy is its own address.
      expect((await keyUsage(oneHop, keys[1]!.key, via('192.0.2.1, 203.0.113.78'))).status).toBe(200);
    } finally {
      clock.unfreeze();
    }
  });

  it('the console sign-in throttle is not escaped either', async () => {
    const { email } = await oneHop.account();
    const attempt = (i: number) =>
      api(oneHop, 'POST', '/auth/login', {
        body: { identifier: email, password: 'wrong-password' },
        headers: via(`198.18.0.${i}, 203.0.113.90`),
      });
    for (let i = 0; i < 3; i++) expect((await attempt(i)).status).toBe(401);
    expectFailure(await attempt(3), 429, 'too_many_attempts');
  });
});
