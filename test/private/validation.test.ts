import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTaskGateway, type TaskGateway } from '../support/task-gateway.js';

// The six ordered steps with the key taken from the body, each answered in the private envelope.
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(() => gw?.close());

async function call(body: Record<string, unknown>) {
  const res = await fetch(`${gw.url}/server/v1/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      clientRequestId: `c-${Math.random()}`,
      model: 'gpt-sim',
      input: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
      ...body,
    }),
  });
  return {
    status: res.status,
    headers: res.headers,
    json: (await res.json()) as { code: number; error_code: string; message: string; request_id: string },
  };
}

describe('validation order under /server', () => {
  it('answers each step in the envelope with its status and code', async () => {
    expect(await call({ apiKey: 'ak-unknownunknownunknown' })).toMatchObject({
      status: 401,
      json: { code: 401, error_code: 'invalid_api_key' },
    });
    const disabled = await gw.account({ balance: 1_000_000, key: { kind: 'private' } });
    await gw.services.db.updateTable('api_keys').set({ status: 'disabled' }).where('id', '=', disabled.keyId).execute();
    gw.services.keyCache.clear();
    expect(await call({ apiKey: disabled.key })).toMatchObject({ status: 403, json: { error_code: 'key_disabled' } });
    const expired = await gw.account({ balance: 1_000_000, key: { kind: 'private' } });
    await gw.services.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', expired.keyId)
      .execute();
    gw.services.keyCache.clear();
    expect(await call({ apiKey: expired.key })).toMatchObject({ status: 401, json: { error_code: 'key_expired' } });
    const fenced = await gw.account({ balance: 1_000_000, key: { kind: 'private', ip_allowlist: ['10.9.9.9'] } });
    expect(await call({ apiKey: fenced.key })).toMatchObject({ status: 403, json: { error_code: 'ip_not_allowed' } });
    const ok = await gw.account({ balance: 1_000_000, key: { kind: 'private' } });
    expect(await call({ apiKey: ok.key, model: 'nope' })).toMatchObject({
      status: 404,
      json: { error_code: 'model_not_found' },
    });
    const broke = await gw.account({ balance: 0, key: { kind: 'private' } });
    expect(await call({ apiKey: broke.key })).toMatchObject({
      status: 402,
      json: { code: 402, error_code: 'insufficient_balance' },
    });
    const limited = await gw.account({ balance: 1_000_000, key: { kind: 'private', rpm_limit: 1 } });
    expect((await call({ apiKey: limited.key })).status).toBe(200);
    const second = await call({ apiKey: limited.key });
    expect(second).toMatchObject({ status: 429, json: { error_code: 'rate_limit_exceeded' } });
    // The failure is the call's state, as getResult shows it.
    expect(second.json.request_id).toBeTruthy();
  });
});
