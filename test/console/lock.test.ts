import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, userSession, type Reply } from './helpers.js';
import { startSecurityGateway, type SecurityGateway } from './security-gateway.js';

// The account lock (3 failures in the window lock for 2 s here) and the per-IP sign-in throttle.
let sg: SecurityGateway;

beforeAll(async () => {
  sg = await startSecurityGateway({
    env: { ACCOUNT_LOCK_THRESHOLD: '3', ACCOUNT_LOCK_SECONDS: '2', TRUST_PROXY: 'true' },
  });
});
afterAll(async () => {
  await sg?.close();
});

const login = (identifier: string, password: string, ip = '192.0.2.1') =>
  api(sg.gw, 'POST', '/auth/login', { body: { identifier, password }, headers: { 'x-forwarded-for': ip } });
const shape = (r: Reply) => ({
  status: r.status,
  error_code: r.json.error_code,
  message: r.json.message,
  keys: Object.keys(r.json).sort(),
  retryAfter: r.headers.get('retry-after') !== null,
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('account lock', () => {
  it('locks after the threshold of wrong passwords, refuses even the right one, and opens after the period', async () => {
    const s = await userSession(sg.gw);
    for (let i = 0; i < 3; i++) expectFailure(await login(s.email, 'wrong-password'), 401, 'invalid_credentials');
    const locked = await login(s.email, 'password123');
    expectFailure(locked, 429, 'account_locked');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    await waitFor(async () => (await login(s.email, 'password123')).status === 200);
  });

  it('locks an unknown e-mail exactly as a real one: the lock reveals no account', async () => {
    const s = await userSession(sg.gw);
    const unknown = `nobody-${Date.now()}@example.test`;
    const real: Reply[] = [];
    const fake: Reply[] = [];
    for (let i = 0; i < 4; i++) {
      real.push(await login(s.email, 'wrong-password'));
      fake.push(await login(unknown, 'wrong-password'));
    }
    expect(real.map(shape)).toEqual(fake.map(shape));
    expect(real.at(-1)!.json.error_code).toBe('account_locked');
  });

  it('counts wrong passwords on sensitive actions toward the same lock', async () => {
    const s = await userSession(sg.gw);
    for (let i = 0; i < 3; i++)
      expectFailure(
        await api(sg.gw, 'POST', '/auth/two-factor', {
          token: s.token,
          body: { enabled: true, password: 'wrong-password', code: '12345678' },
        }),
        403,
        'invalid_password',
      );
    expectFailure(await login(s.email, 'password123'), 429, 'account_locked');
    expectFailure(
      await api(sg.gw, 'POST', '/auth/two-factor', {
        token: s.token,
        body: { enabled: true, password: 'password123', code: '12345678' },
      }),
      429,
      'account_locked',
    );
  });

  it('answers a wrong password and an unknown e-mail alike, in comparable time', async () => {
    const s = await userSession(sg.gw);
    const times = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 10; i++) {
      for (const [kind, email] of [
        ['known', s.email],
        ['unknown', `ghost-${i}@example.test`],
      ] as const) {
        const started = performance.now();
        const reply = await login(email, `wrong-${i}`, `198.51.100.${i}`);
        times[kind].push(performance.now() - started);
        expectFailure(reply, 401, 'invalid_credentials');
        expect(reply.json.message).toBe('wrong e-mail or password');
      }
      if (i % 2 === 1)
        await sg.gw.services.redis.del(
          ...(await sg.gw.services.redis.keys(`${sg.gw.services.config.redis.prefix}lim:signin-failures:*`)),
        );
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Both pay one argon2id verification (~tens of ms): a missing account would show as a few ms, a
    // tenth of the other or less. The bounds leave room for a busy machine's noise (seen: 0.45×).
    expect(median(times.unknown)).toBeGreaterThan(median(times.known) * 0.3);
    expect(median(times.unknown)).toBeLessThan(median(times.known) * 3.3);
  });
});

describe('per-IP sign-in throttle', () => {
  it('refuses sign-in attempts past SIGNIN_IP_LIMIT per 15 minutes from one address, whatever the account', async () => {
    const limited = await startSecurityGateway({ env: { SIGNIN_IP_LIMIT: '4', TRUST_PROXY: 'true' } });
    try {
      const account = await limited.gw.account();
      const from = (ip: string, identifier: string, password = 'wrong-password') =>
        api(limited.gw, 'POST', '/auth/login', { body: { identifier, password }, headers: { 'x-forwarded-for': ip } });
      for (let i = 0; i < 4; i++) expect((await from('203.0.113.9', `someone-${i}@example.test`)).status).toBe(401);
      const refused = await from('203.0.113.9', account.email, 'password123');
      expectFailure(refused, 429, 'too_many_attempts');
      // The limiter spreads the window: the next attempt is allowed a quarter-window later.
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(900);
      expect((await from('203.0.113.10', account.email, 'password123')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
