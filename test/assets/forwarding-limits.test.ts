import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, signIn } from '../console/helpers.js';
import { uploadAsset, type UploadedAsset } from '../support/assets.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pngOfSize } from '../support/images.js';
import type { Json } from '../support/limits.js';
import { drained, usageRecords, usersBalance } from '../support/money.js';

// Spec, Limits: an original upload is at most 100 MiB "; an administrator may set a lower limit"
// (ASSET_MAX_BYTES), and a model is forwarded "at most 10 MiB each, 20 MiB combined". The limit
// here is lowered to 10 MiB: two references of exactly 10 MiB fill the 20 MiB to the byte.
const MiB = 1024 * 1024;
const LIMIT = 10 * MiB;
const PER_IMAGE = 40_000;
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    env: { ASSET_MAX_BYTES: String(LIMIT) },
    catalog: (simUrl) =>
      testCatalog(simUrl, {
        models: [
          {
            id: 'img-sim',
            endpoints: ['images/generations', 'images/edits'],
            routes: [{ provider: 'sim', upstream_model: 'up-image' }],
            pricing: { per_image: PER_IMAGE },
          },
        ],
        groups: [{ id: 'default', models: ['*'] }],
      }),
  });
});
afterAll(() => gw?.close());

describe('a lowered upload limit (ASSET_MAX_BYTES)', () => {
  it('refuses a reservation one byte past it with 413 asset_too_large, on the API and in the console; at the limit it is taken', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const reserve = (size: number) =>
      fetch(`${gw.url}/v1/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filename: 'big.png', content_type: 'image/png', size_bytes: size }),
      });
    const over = await reserve(LIMIT + 1);
    expect(over.status).toBe(413);
    expect(((await over.json()) as Json).error).toMatchObject({ code: 'asset_too_large', param: 'size_bytes' });
    expect((await reserve(LIMIT)).status).toBe(200);

    const { token } = await signIn(gw, acct.email);
    const body = (size: number) => ({ filename: 'big.png', content_type: 'image/png', size_bytes: size });
    expectFailure(await api(gw, 'POST', '/assets', { token, body: body(LIMIT + 1) }), 413, 'asset_too_large');
    expect((await api(gw, 'POST', '/assets', { token, body: body(LIMIT) })).status).toBe(200);
  });
});

describe('the 20 MiB forwarded to a model per request', () => {
  let acct: { key: string; userId: string };
  let full: UploadedAsset[];
  let tiny: UploadedAsset;
  beforeAll(async () => {
    acct = await gw.account({ balance: 1_000_000 });
    full = [await uploadAsset(gw, acct.key, pngOfSize(LIMIT)), await uploadAsset(gw, acct.key, pngOfSize(LIMIT))];
    tiny = await uploadAsset(gw, acct.key, pngOfSize(1_024));
  });

  const edit = async (images: UploadedAsset[], mask?: UploadedAsset) => {
    const res = await fetch(`${gw.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'img-sim',
        prompt: 'combine them',
        images: images.map((a) => ({ image_url: a.reference })),
        ...(mask && { mask: { image_url: mask.reference } }),
      }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };

  it('takes references of exactly 20 MiB together', async () => {
    const before = gw.sim.stats().requests;
    const res = await edit(full);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(gw.sim.stats().requests).toBe(before + 1);
    expect(gw.sim.stats().lastRequestText).not.toContain('asset://');
  });

  it('refuses any more with 400 naming the reference that passes the cap, sends nothing and charges nothing', async () => {
    await drained(gw);
    const balance = await usersBalance(gw.services.db, acct.userId);
    const recordsBefore = (await usageRecords(gw.services.db, acct.userId)).length;
    const before = gw.sim.stats().requests;
    for (const [res, param] of [
      [await edit([...full, tiny]), 'images[2].image_url'],
      [await edit([tiny, ...full]), 'images[2].image_url'],
      [await edit(full, tiny), 'mask.image_url'],
    ] as const) {
      expect(res.status, param).toBe(400);
      expect(res.json.error, param).toMatchObject({ code: 'invalid_request', param });
      expect(res.json.error.message).toMatch(/20 MiB/);
    }
    expect(gw.sim.stats().requests).toBe(before);
    await drained(gw);
    const refused = (await usageRecords(gw.services.db, acct.userId)).slice(recordsBefore);
    expect(refused.map((r) => [r.status_code, Number(r.charged_micro_usd)])).toEqual([
      [400, 0],
      [400, 0],
      [400, 0],
    ]);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(balance);
  });
});
