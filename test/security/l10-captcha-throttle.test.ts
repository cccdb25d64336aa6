import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure } from '../console/helpers.js';
import { startSecurityGateway, type SecurityGateway } from '../console/security-gateway.js';

// L10: the reset request verified its captcha before the per-IP throttle, so every request — the
// throttled ones included — made an outbound call to the captcha provider.
const LIMIT = 3;
let sg: SecurityGateway;
let captcha: Server;
let verifications = 0;

beforeAll(async () => {
  // A siteverify endpoint on loopback that refuses every token, as the provider does for a robot's.
  captcha = createServer((req, res) => {
    req.resume().on('end', () => {
      verifications++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: false, 'error-codes': ['invalid-input-response'] }));
    });
  });
  await new Promise<void>((resolve) => captcha.listen(0, '127.0.0.1', resolve));
  const verifyUrl = `http://127.0.0.1:${(captcha.address() as AddressInfo).port}/siteverify`;
  sg = await startSecurityGateway({
    env: { CAPTCHA_VERIFY_URL: verifyUrl, CAPTCHA_SECRET: 'captcha-secret', SIGNIN_IP_LIMIT: String(LIMIT) },
  });
});
afterAll(async () => {
  await sg?.close();
  await new Promise((resolve) => captcha?.close(resolve));
});

describe('L10: the per-IP throttle runs before the captcha check', () => {
  it('past SIGNIN_IP_LIMIT, reset requests are refused without calling the captcha provider', async () => {
    const request = () =>
      api(sg.gw, 'POST', '/auth/password/reset/request', {
        body: { email: 'victim@example.test', captcha_token: 'robot' },
      });
    for (let i = 0; i < LIMIT; i++) expectFailure(await request(), 400, 'captcha_invalid');
    expect(verifications).toBe(LIMIT);
    for (let i = 0; i < 10; i++) expectFailure(await request(), 429, 'too_many_attempts');
    expect(verifications).toBe(LIMIT);
  });
});
