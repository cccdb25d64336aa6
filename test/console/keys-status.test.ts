import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatRequest, openAiError, postChat } from '../support/http.js';
import { drained } from '../support/money.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { api, expectFailure, signIn, userSession } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const chat = (key: string) => postChat(gw.url, key, chatRequest('gpt-sim', 'status test', { max_tokens: 3 }));

describe('PATCH /api/v1/keys/{id} {status}', () => {
  it('disables the key (403 key_disabled at once on every process) and enables it again', async () => {
    const account = await gw.account({ balance: 1_000_000 });
    const s = { ...account, ...(await signIn(gw, account.email)) };
    expect((await chat(s.key)).status).toBe(200); // the key is cached by this process now

    const disabled = await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { status: 'disabled' } });
    expect(disabled.status, JSON.stringify(disabled.json)).toBe(200);
    expect(disabled.json.data).toMatchObject({ id: s.keyId, status: 'disabled' });
    await expect.poll(async () => (await chat(s.key)).status, { timeout: 1_000, interval: 50 }).toBe(403);
    expect(openAiError(await chat(s.key)).code).toBe('key_disabled');

    const enabled = await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { status: 'active' } });
    expect(enabled.json.data).toMatchObject({ status: 'active' });
    await expect.poll(async () => (await chat(s.key)).status, { timeout: 1_000, interval: 50 }).toBe(200);
    await drained(gw);
  });

  it('refuses revoked (its own route, final) and unknown statuses; a revoked key stays revoked', async () => {
    const s = await userSession(gw);
    for (const status of ['revoked', 'paused', null]) {
      expectFailure(
        await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { status } }),
        400,
        'invalid_request',
      );
    }
    await api(gw, 'POST', `/keys/${s.keyId}/revoke`, { token: s.token });
    const reply = await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { status: 'active' } });
    expectFailure(reply, 409, 'conflict');
    expect((await chat(s.key)).status).toBe(401);
  });
});
