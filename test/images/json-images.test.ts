import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../shared/keys/manage-keys.js';
import { uploadAsset } from '../support/assets.js';
import { startTestGateway, offsetClock, type TestGateway } from '../support/gateway.js';
import { testCatalog } from '../support/catalog.js';
import { pngOfSize } from '../support/images.js';
import type { Json } from '../support/limits.js';
import { drained, usageRecords, usersBalance, waitForUsage } from '../support/money.js';

// JSON image generation and edits through the openai SDK: per-image prices, links that are the
// gateway's and the account's, reference images, refusals that cost nothing.
const clock = offsetClock();
const PNG_MAGIC = '89504e470d0a1a0a';
const PER_IMAGE = { '1024x1024': 40_000, 'hd:1024x1024': 80_000, '512x512': 20_000 };
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    clock,
    catalog: (simUrl) =>
      testCatalog(simUrl, {
        models: [
          {
            id: 'gpt-sim',
            endpoints: ['chat/completions'],
            routes: [{ provider: 'sim', upstream_model: 'sim-model' }],
            pricing: { input_per_mtok: 1, output_per_mtok: 1 },
          },
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

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

describe('JSON images', () => {
  it("generates images behind the gateway's own links, for this account only, and charges per image", async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const other = await gw.account({ balance: 1_000_000 });
    const res = await client(acct.key).images.generate({
      model: 'img-sim',
      prompt: 'a red fox',
      n: 2,
      size: '1024x1024',
    });
    expect(res.data).toHaveLength(2);
    for (const image of res.data!) {
      expect(image.url?.startsWith(`${gw.url}/v1/files/`)).toBe(true);
      expect(image.revised_prompt).toBe('a red fox');
      const download = await fetch(image.url!);
      expect(download.status).toBe(200);
      const bytes = Buffer.from(await download.arrayBuffer());
      expect(bytes.subarray(0, 8).toString('hex')).toBe(PNG_MAGIC);
      expect(bytes.length).toBe(2048);
      expect((await fetch(image.url!, { headers: { authorization: `Bearer ${acct.key}` } })).status).toBe(200);
      expect((await fetch(image.url!, { headers: { authorization: `Bearer ${other.key}` } })).status).toBe(404);
    }
    const [record] = await waitForUsage(gw, acct.userId, 1);
    expect(record).toMatchObject({ endpoint: 'images/generations', status_code: 200, model: 'img-sim' });
    expect(Number(record!.charged_micro_usd)).toBe(2 * PER_IMAGE['1024x1024']);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(1_000_000 - 80_000);

    clock.advance(2 * 60 * 60 * 1000);
    try {
      expect((await fetch(res.data![0]!.url!)).status).toBe(404);
    } finally {
      clock.set(Date.now());
    }
  });

  it('answers b64_json inline and prices by quality', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const res = await client(acct.key).images.generate({
      model: 'img-sim',
      prompt: 'a blue fox',
      size: '1024x1024',
      quality: 'hd',
      response_format: 'b64_json',
    });
    expect(Buffer.from(res.data![0]!.b64_json!, 'base64').subarray(0, 8).toString('hex')).toBe(PNG_MAGIC);
    const [record] = await waitForUsage(gw, acct.userId, 1);
    expect(Number(record!.charged_micro_usd)).toBe(PER_IMAGE['hd:1024x1024']);
  });

  it('edits with a data-URI reference (JSON), and refuses multipart with 501', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const dataUri = `data:image/png;base64,${pngOfSize(120).toString('base64')}`;
    const res = await fetch(`${gw.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'img-sim',
        prompt: 'make it green',
        images: [{ image_url: dataUri }],
        size: '512x512',
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { url: string }[] }).data[0]!.url).toContain('/v1/files/');
    expect(JSON.parse(gw.sim.stats().lastRequestText!)).toMatchObject({
      model: 'up-image',
      images: [{ image_url: dataUri }],
    });
    expect(JSON.parse(gw.sim.stats().lastRequestText!).response_format).toBeUndefined();
    const [record] = await waitForUsage(gw, acct.userId, 1);
    expect(record).toMatchObject({ endpoint: 'images/edits' });
    expect(Number(record!.charged_micro_usd)).toBe(PER_IMAGE['512x512']);

    // An inline reference is checked like an upload: its label must be what its bytes are.
    const mislabelled = await postImages(acct.key, 'edits', {
      model: 'img-sim',
      prompt: 'make it green',
      images: [{ image_url: dataUri.replace('image/png', 'image/jpeg') }],
    });
    expect(mislabelled.status).toBe(400);
    expect(mislabelled.json.error).toMatchObject({ code: 'unsupported_media_type', param: 'images[0].image_url' });

    const multipart = await client(acct.key)
      .images.edit({
        model: 'img-sim',
        prompt: 'x',
        image: await toFile(Buffer.from(PNG_MAGIC, 'hex'), 'a.png', { type: 'image/png' }),
      })
      .catch((e: unknown) => e);
    expect(multipart).toBeInstanceOf(OpenAI.APIError);
    expect(multipart).toMatchObject({ status: 501, code: 'not_implemented' });
  });

  it("asset:// references in edits (images and mask) and in generation reach the upstream as the gateway's links to the asset, never as written", async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const bytes = pngOfSize(4_096);
    const asset = await uploadAsset(gw, acct.key, bytes);
    const expectLinkToAsset = async (url: unknown) => {
      expect(typeof url === 'string' && url.startsWith(`${gw.url}/v1/files/`), String(url)).toBe(true);
      const served = await fetch(url as string);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    };

    const edit = await postImages(acct.key, 'edits', {
      model: 'img-sim',
      prompt: 'make it green',
      images: [{ image_url: asset.reference }],
      mask: { image_url: asset.reference },
      size: '512x512',
    });
    expect(edit.status, JSON.stringify(edit.json)).toBe(200);
    expect(gw.sim.stats().lastRequestText).not.toContain('asset://');
    const editSent = JSON.parse(gw.sim.stats().lastRequestText!);
    await expectLinkToAsset(editSent.images[0].image_url);
    await expectLinkToAsset(editSent.mask.image_url);

    // Generation passes fields beyond its own through; a reference among them is resolved the same way.
    const generation = await postImages(acct.key, 'generations', {
      model: 'img-sim',
      prompt: 'in this style',
      image: asset.reference,
      size: '512x512',
    });
    expect(generation.status, JSON.stringify(generation.json)).toBe(200);
    expect(gw.sim.stats().lastRequestText).not.toContain('asset://');
    await expectLinkToAsset(JSON.parse(gw.sim.stats().lastRequestText!).image);
    const records = await waitForUsage(gw, acct.userId, 2);
    expect(records.map((r) => Number(r.charged_micro_usd))).toEqual([PER_IMAGE['512x512'], PER_IMAGE['512x512']]);
  });

  it('asset:// from a key with asset_access none answers 403 asset_access_denied; out of scope answers exactly like missing (400 reference_asset_unavailable); nothing is sent or charged', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const stranger = await gw.account({ balance: 1_000_000 });
    const mine = await uploadAsset(gw, acct.key, pngOfSize(2_048));
    const theirs = await uploadAsset(gw, stranger.key, pngOfSize(2_048));
    const admin = {
      db: gw.services.db,
      redis: gw.services.redis,
      channel: gw.services.redisKeys.keyInvalidation,
      catalog: gw.services.catalog,
    };
    const noAssets = (await createKey(admin, acct.userId, { asset_access: 'none' })).key;
    // asset_access own: this key sees its own uploads and the console's, not another key's.
    const ownOnly = (await createKey(admin, acct.userId, { asset_access: 'own' })).key;
    const bodies = {
      edits: (ref: string) => ({ model: 'img-sim', prompt: 'x', images: [{ image_url: ref }] }),
      generations: (ref: string) => ({ model: 'img-sim', prompt: 'x', image: ref }),
    };
    const param = { edits: 'images[0].image_url', generations: 'image' };
    // Equal apart from the id quoted in the message.
    const strip = (r: { status: number; json: Json }) => ({
      status: r.status,
      error: { ...r.json.error, message: r.json.error.message.replace(/asset_\w+/, 'X') },
    });
    const before = gw.sim.stats().requests;
    for (const operation of ['edits', 'generations'] as const) {
      const denied = await postImages(noAssets, operation, bodies[operation](mine.reference));
      expect(denied.status, operation).toBe(403);
      expect(denied.json.error, operation).toMatchObject({ code: 'asset_access_denied', param: param[operation] });
      const missing = await postImages(acct.key, operation, bodies[operation]('asset://asset_AAAAAAAAAAAAAAAAAAAA'));
      expect(missing.status, operation).toBe(400);
      expect(missing.json.error, operation).toMatchObject({
        code: 'reference_asset_unavailable',
        param: param[operation],
      });
      const anotherAccount = await postImages(acct.key, operation, bodies[operation](theirs.reference));
      const anotherKey = await postImages(ownOnly, operation, bodies[operation](mine.reference));
      expect(strip(anotherAccount), operation).toEqual(strip(missing));
      expect(strip(anotherKey), operation).toEqual(strip(missing));
    }
    expect(gw.sim.stats().requests).toBe(before);
    await drained(gw);
    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records.every((r) => Number(r.charged_micro_usd) === 0)).toBe(true);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(1_000_000);
  });

  it('refuses bad input by name and charges nothing', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ model: 'img-sim', prompt: 'x', n: 11 }, 'generations', 'n'],
      [{ model: 'img-sim', prompt: 'x', n: 0 }, 'generations', 'n'],
      [{ model: 'img-sim', prompt: 'x', size: '999x999' }, 'generations', 'size'],
      [{ model: 'img-sim', prompt: 'x', quality: 'ultra' }, 'generations', 'quality'],
      [{ model: 'img-sim', prompt: '' }, 'generations', 'prompt'],
      [{ model: 'img-sim', prompt: 'x', response_format: 'gif' }, 'generations', 'response_format'],
      [
        { model: 'img-sim', prompt: 'x', images: [{ image_url: 'http://example.com/a.png' }] },
        'edits',
        'images[0].image_url',
      ],
      [
        { model: 'img-sim', prompt: 'x', images: [{ image_url: 'ftp://example.com/a.png' }] },
        'edits',
        'images[0].image_url',
      ],
      [{ model: 'img-sim', prompt: 'x', images: [] }, 'edits', 'images'],
      [
        { model: 'img-sim', prompt: 'x', images: [{ image_url: 'asset://asset_00000000000000000000' }] },
        'edits',
        'images[0].image_url',
      ],
    ];
    for (const [body, operation, param] of cases) {
      const res = await fetch(`${gw.url}/v1/images/${operation}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { error: { param: string; code: string } };
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(json.error.param, JSON.stringify(body)).toBe(param);
    }
    const rows = await usageRecords(gw.services.db, acct.userId);
    expect(rows.every((r) => Number(r.charged_micro_usd) === 0)).toBe(true);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(1_000_000);
  });

  it('estimates from the same per-image prices', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const post = (payload: Record<string, unknown>) =>
      fetch(`${gw.url}/v1/estimates`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'images/generations', payload }),
      });
    expect(await (await post({ model: 'img-sim', prompt: 'x', n: 3, size: '512x512' })).json()).toMatchObject({
      estimated_micro_usd: 60_000,
    });
    expect(await (await post({ model: 'img-sim', prompt: 'x', quality: 'hd' })).json()).toMatchObject({
      estimated_micro_usd: 80_000,
    });
  });

  it('lists what each model serves', async () => {
    const acct = await gw.account({ balance: 1 });
    const models = await client(acct.key).models.list();
    const byId = Object.fromEntries(
      models.data.map((m) => [m.id, (m as unknown as { endpoints: string[] }).endpoints]),
    );
    expect(byId['img-sim']).toEqual(['images/generations', 'images/edits']);
    expect(byId['gpt-sim']).toEqual(['chat/completions']);
  });
});

async function postImages(key: string, operation: 'generations' | 'edits', body: unknown) {
  const res = await fetch(`${gw.url}/v1/images/${operation}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Json };
}
