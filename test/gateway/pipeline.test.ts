import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, setKeyStatus, type KeyAdmin } from '../../shared/keys/manage-keys.js';
import { publishKeyChange } from '../../shared/keys/key-cache.js';
import type { KeyCreate } from '../../shared/keys/key-settings.js';
import { buildCatalog } from '../../shared/catalog/index.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, openAiError, postChat, sleep } from '../support/http.js';
import { drained, ledgerRows, usageRecords } from '../support/money.js';

let gw: TestGateway;
let admin: KeyAdmin;
/** One funded account owns every key below, so "nothing was charged" is checked once for all. */
let payer: { userId: string; key: string };
const FUNDS = 1_000_000;

beforeAll(async () => {
  gw = await startTestGateway();
  const s = gw.services;
  admin = {
    db: s.db,
    redis: s.redis,
    channel: s.redisKeys.keyInvalidation,
    catalog: buildCatalog(testCatalog(gw.sim.url)),
  };
  payer = await gw.account({ balance: FUNDS });
});
afterAll(() => gw.close());

/** A key of the funded account; `row` sets columns the API refuses (a past expiry), then tells every process. */
async function key(
  settings: KeyCreate = {},
  row: { status?: 'disabled' | 'revoked'; expired?: boolean } = {},
): Promise<string> {
  const created = await createKey(admin, payer.userId, settings);
  if (row.status || row.expired) {
    await gw.services.db
      .updateTable('api_keys')
      .set({
        ...(row.status ? { status: row.status } : {}),
        ...(row.expired ? { expires_at: sql<Date>`now() - interval '1 minute'` } : {}),
      })
      .where('id', '=', created.row.id)
      .execute();
    await publishKeyChange(gw.services.redis, admin.channel, created.row.id);
  }
  return created.key;
}

const call = (secret: string | undefined, model = 'gpt-sim') => postChat(gw.url, secret, chatRequest(model, 'hello'));
const BAD_IP = { ip_allowlist: ['10.0.0.0/8'] };

async function expectRefusal(secret: string | undefined, model: string, status: number, code: string, type: string) {
  const res = await call(secret, model);
  expect(res.status).toBe(status);
  expect(openAiError(res)).toMatchObject({ code, type });
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
}

describe('each step answers its own error in OpenAI format', () => {
  it('step 1: invalid_api_key 401 for a missing, unknown or revoked key', async () => {
    await expectRefusal(undefined, 'gpt-sim', 401, 'invalid_api_key', 'authentication_error');
    await expectRefusal(`sk-${'x'.repeat(48)}`, 'gpt-sim', 401, 'invalid_api_key', 'authentication_error');
    const revoked = await createKey(admin, payer.userId, {});
    await setKeyStatus(admin, payer.userId, revoked.row.id, 'revoked');
    await expectRefusal(revoked.key, 'gpt-sim', 401, 'invalid_api_key', 'authentication_error');
  });

  it('step 1: key_disabled 403', async () => {
    await expectRefusal(await key({}, { status: 'disabled' }), 'gpt-sim', 403, 'key_disabled', 'permission_error');
  });

  it('step 2: key_expired 401, set in the row and published', async () => {
    await expectRefusal(await key({}, { expired: true }), 'gpt-sim', 401, 'key_expired', 'authentication_error');
  });

  it('step 2: a cached key is refused once its expiry passes', async () => {
    const expiresAt = Date.now() + 400;
    const secret = await key({ expires_at: new Date(expiresAt).toISOString() });
    expect((await call(secret)).status).toBe(200); // now in the key cache, still valid
    await sleep(expiresAt - Date.now() + 20);
    await expectRefusal(secret, 'gpt-sim', 401, 'key_expired', 'authentication_error');
  });

  it('step 3: ip_not_allowed 403 (the allowlist is 10.0.0.0/8, calls come from 127.0.0.1)', async () => {
    await expectRefusal(await key(BAD_IP), 'gpt-sim', 403, 'ip_not_allowed', 'permission_error');
    expect((await call(await key({ ip_allowlist: ['127.0.0.0/8'] }))).status).toBe(200);
  });

  it('step 4: model_not_found 404 and model_not_allowed 403, naming param model', async () => {
    const unknown = await call(await key(), 'no-such-model');
    expect(unknown.status).toBe(404);
    expect(openAiError(unknown)).toMatchObject({ code: 'model_not_found', param: 'model' });
    const restricted = await call(await key({ group: 'basic' }), 'restricted-sim');
    expect(restricted.status).toBe(403);
    expect(openAiError(restricted)).toMatchObject({
      code: 'model_not_allowed',
      param: 'model',
      type: 'permission_error',
    });
  });

  it('step 5: insufficient_balance 402 with no balance or too little for the reservation', async () => {
    const broke = await gw.account();
    await expectRefusal(broke.key, 'gpt-sim', 402, 'insufficient_balance', 'insufficient_quota');
    // gpt-sim reserves at least max_output_tokens (1000) × 8 micro-USD.
    const poor = await gw.account({ balance: 7_999 });
    await expectRefusal(poor.key, 'gpt-sim', 402, 'insufficient_balance', 'insufficient_quota');
    const small = await postChat(gw.url, poor.key, chatRequest('gpt-sim', 'hello', { max_tokens: 10 }));
    expect(small.status).toBe(200); // a smaller cap reserves less and fits
  });
});

describe('the earliest failing step wins', () => {
  it('disabled + expired + bad IP + unknown model → key_disabled', async () => {
    const secret = await key(BAD_IP, { status: 'disabled', expired: true });
    await expectRefusal(secret, 'no-such-model', 403, 'key_disabled', 'permission_error');
  });

  it('expired + bad IP + unknown model → key_expired', async () => {
    await expectRefusal(
      await key(BAD_IP, { expired: true }),
      'no-such-model',
      401,
      'key_expired',
      'authentication_error',
    );
  });

  it('bad IP + unknown model → ip_not_allowed', async () => {
    await expectRefusal(await key(BAD_IP), 'no-such-model', 403, 'ip_not_allowed', 'permission_error');
  });

  it('unknown model + no balance → model_not_found; disallowed model + no balance → model_not_allowed', async () => {
    const broke = await gw.account();
    await expectRefusal(broke.key, 'no-such-model', 404, 'model_not_found', 'invalid_request_error');
    const basic = await gw.account({ key: { group: 'basic' } });
    await expectRefusal(basic.key, 'restricted-sim', 403, 'model_not_allowed', 'permission_error');
  });
});

describe('refused calls cost nothing', () => {
  it('leaves the balance as it was and writes no charge', async () => {
    const before = await gw.services.balances.currentBalance(payer.userId);
    for (const [secret, model] of [
      [await key({}, { status: 'disabled' }), 'gpt-sim'],
      [await key({}, { expired: true }), 'gpt-sim'],
      [await key(BAD_IP), 'gpt-sim'],
      [await key(), 'no-such-model'],
      [await key({ group: 'basic' }), 'restricted-sim'],
    ] as const) {
      expect((await call(secret, model)).status).toBeGreaterThanOrEqual(400);
    }
    await drained(gw);
    expect(await gw.services.balances.currentBalance(payer.userId)).toEqual(before);
    // Only the successful calls of the tests above were charged.
    const charged = (await usageRecords(gw.services.db, payer.userId)).filter((r) => r.charged_micro_usd > 0);
    expect(charged.every((r) => r.status_code === 200)).toBe(true);
    const charges = (await ledgerRows(gw.services.db, payer.userId)).filter((r) => r.kind === 'charge');
    expect(charges.map((r) => r.request_id).sort()).toEqual(charged.map((r) => r.id).sort());
  });

  it('an account whose every call was refused has no charge and its full balance', async () => {
    const acct = await gw.account({ balance: 5_000, key: { group: 'basic' } });
    for (const model of ['gpt-sim', 'restricted-sim', 'no-such-model'])
      expect((await call(acct.key, model)).status).toBeGreaterThanOrEqual(400);
    await drained(gw);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(5_000);
    expect((await ledgerRows(gw.services.db, acct.userId)).map((r) => r.kind)).toEqual(['credit']);
    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records.map((r) => [r.status_code, r.error_code, r.charged_micro_usd])).toEqual(
      expect.arrayContaining([
        [402, 'insufficient_balance', 0],
        [403, 'model_not_allowed', 0],
        [404, 'model_not_found', 0],
      ]),
    );
  });
});
