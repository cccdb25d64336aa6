import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, signIn } from './helpers.js';

// Behind a TLS-terminating proxy (TRUST_PROXY=true) the cookie is Secure exactly when the proxy says HTTPS.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { TRUST_PROXY: 'true' } });
});
afterAll(() => gw.close());

it('marks the session cookie Secure when served over HTTPS', async () => {
  const acct = await gw.account();
  const https = await signIn(gw, acct.email, 'password123', { 'x-forwarded-proto': 'https' });
  const http = await signIn(gw, acct.email, 'password123', { 'x-forwarded-proto': 'http' });
  expect(https.setCookie.toLowerCase().split(/;\s*/)).toContain('secure');
  expect(http.setCookie.toLowerCase().split(/;\s*/)).not.toContain('secure');
  // The secure cookie still identifies the session (the proxy forwards it over plain HTTP).
  const me = await api(gw, 'GET', '/auth/me', { cookie: https.cookie, headers: { 'x-forwarded-proto': 'https' } });
  expect(me.json.data.id).toBe(acct.userId);
  // The browser's page is on the HTTPS origin too, and says so.
  const out = await api(gw, 'POST', '/auth/logout', {
    cookie: https.cookie,
    headers: { 'x-forwarded-proto': 'https', origin: gw.url.replace('http:', 'https:') },
  });
  expect(out.headers.get('set-cookie')?.toLowerCase()).toContain('secure');
});
