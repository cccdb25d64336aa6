import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { publishKeyChange } from '../../shared/keys/key-cache.js';
import { setKeyStatus } from '../../shared/keys/manage-keys.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { controlClock, errorOf, keySeen, keyUsage, retryAfter } from '../support/limits.js';

// TRUST_PROXY lets the test speak from many source addresses (X-Forwarded-For); the frozen
// domain clock makes the windows exact and lets the test wait without waiting.
const clock = controlClock();
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ clock, env: { TRUST_PROXY: 'true' } });
});
afterAll(() => gw.close());
afterEach(() => clock.unfreeze());

const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe('GET /v1/key/usage frequency limits', () => {
  it('10 per minute per source address: the 11th answers 429 with an honest Retry-After', async () => {
    clock.freeze();
    const a = await gw.account();
    const b = await gw.account();
    const ip = '203.0.113.7';
    for (let i = 0; i < 10; i++) expect((await keyUsage(gw, i % 2 ? a.key : b.key, from(ip))).status).toBe(200);
    const refused = await keyUsage(gw, a.key, from(ip));
    expect(refused.status).toBe(429);
    expect(errorOf(refused).code).toBe('rate_limit_exceeded');
    expect(errorOf(refused).message).toMatch(/address/);
    expect(retryAfter(refused)).toBe(6); // one more every 60/10 s
    // The address is limited before the key is looked up: even a bad key gets 429, not 401.
    expect((await keyUsage(gw, 'sk-guessing', from(ip))).status).toBe(429);
    // Another address is not affected.
    expect((await keyUsage(gw, a.key, from('203.0.113.8'))).status).toBe(200);

    clock.advance(5_000);
    expect((await keyUsage(gw, a.key, from(ip))).status).toBe(429);
    clock.advance(1_000);
    expect((await keyUsage(gw, a.key, from(ip))).status).toBe(200);
  });

  it('30 per minute per key, whatever the address: the 31st answers 429 with an honest Retry-After', async () => {
    clock.freeze();
    const k = await gw.account();
    const other = await gw.account();
    for (let i = 0; i < 30; i++) {
      const r = await keyUsage(gw, k.key, from(`198.51.100.${1 + Math.floor(i / 10)}`));
      expect(r.status, JSON.stringify(r.json)).toBe(200);
    }
    const refused = await keyUsage(gw, k.key, from('198.51.100.9'));
    expect(refused.status).toBe(429);
    expect(errorOf(refused).message).toMatch(/key/);
    expect(retryAfter(refused)).toBe(2); // one more every 60/30 s
    expect((await keyUsage(gw, other.key, from('198.51.100.9'))).status).toBe(200); // another key is not affected

    clock.advance(1_000);
    expect((await keyUsage(gw, k.key, from('198.51.100.10'))).status).toBe(429);
    clock.advance(1_000);
    expect((await keyUsage(gw, k.key, from('198.51.100.10'))).status).toBe(200);
  });

  it('invalid or revoked keys answer 401 and disabled keys 403, within the address limit', async () => {
    const a = await gw.account();
    const unknown = await keyUsage(gw, 'sk-nope', from('192.0.2.1'));
    expect(unknown.status).toBe(401);
    const none = await keyUsage(gw, undefined, from('192.0.2.1'));
    expect(none.status).toBe(401);
    await gw.services.db.updateTable('api_keys').set({ status: 'disabled' }).where('id', '=', a.keyId).execute();
    await publishKeyChange(gw.services.redis, gw.services.redisKeys.keyInvalidation, a.keyId);
    await keySeen(gw, a.key, (k) => k.status === 'disabled');
    expect((await keyUsage(gw, a.key, from('192.0.2.2'))).status).toBe(403);
  });
});

describe('GET /v1/key/usage with a key that is no longer valid', () => {
  // Spec, Authentication: "invalid, revoked or expired key answers 401". Each key is looked up once
  // while valid first, so the refusal also proves the gateway's key cache does not serve a stale key.
  it('a revoked key answers 401 with an error code and none of its data', async () => {
    const a = await gw.account();
    expect((await keyUsage(gw, a.key, from('192.0.2.10'))).status).toBe(200);
    const admin = {
      db: gw.services.db,
      redis: gw.services.redis,
      channel: gw.services.redisKeys.keyInvalidation,
      catalog: gw.services.catalog,
    };
    await setKeyStatus(admin, a.userId, a.keyId, 'revoked');
    await keySeen(gw, a.key, (k) => k.status === 'revoked');
    const refused = await keyUsage(gw, a.key, from('192.0.2.10'));
    expect(refused.status).toBe(401);
    expect(errorOf(refused).code).toBe('invalid_api_key');
    expect(Object.keys(refused.json)).toEqual(['error']);
  });

  it('an expired key answers 401 with an error code and none of its data', async () => {
    const a = await gw.account({ key: { expires_at: new Date(Date.now() + 86_400_000).toISOString() } });
    expect((await keyUsage(gw, a.key, from('192.0.2.11'))).status).toBe(200);
    // Its expiry passes (a key cannot be created already expired).
    await gw.services.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1_000) })
      .where('id', '=', a.keyId)
      .execute();
    await publishKeyChange(gw.services.redis, gw.services.redisKeys.keyInvalidation, a.keyId);
    await keySeen(gw, a.key, (k) => k.expiresAt !== null && k.expiresAt < Date.now());
    const refused = await keyUsage(gw, a.key, from('192.0.2.11'));
    expect(refused.status).toBe(401);
    expect(errorOf(refused).code).toBe('key_expired');
    expect(Object.keys(refused.json)).toEqual(['error']);
  });
});
