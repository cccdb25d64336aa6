import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadAsset } from '../support/assets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pngOfSize } from '../support/images.js';
import { drained, usersBalance } from '../support/money.js';
import { MODEL_OF, surfacesCatalog } from '../surfaces/catalog.js';

// Issue 30, part 5: `asset://` references in the image parts of chat completions, Responses,
// Messages and generateContent calls are resolved with the same scope rules as every other surface
// and go upstream inline: no upstream ever sees `asset://`.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
});
afterAll(() => gw?.close());

const FUNDS = 1_000_000;
const PNG = pngOfSize(300);

async function post(path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

type Upstream = keyof typeof MODEL_OF;
const CALLS: Record<string, (key: string, ref: string, upstream: Upstream) => ReturnType<typeof post>> = {
  'chat completions': (key, ref, upstream) =>
    post(
      '/v1/chat/completions',
      { authorization: `Bearer ${key}` },
      {
        model: MODEL_OF[upstream],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is it' },
              { type: 'image_url', image_url: { url: ref } },
            ],
          },
        ],
      },
    ),
  responses: (key, ref, upstream) =>
    post(
      '/v1/responses',
      { authorization: `Bearer ${key}` },
      {
        model: MODEL_OF[upstream],
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'what is it' },
              { type: 'input_image', image_url: ref },
            ],
          },
        ],
      },
    ),
  messages: (key, ref, upstream) =>
    post(
      '/v1/messages',
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      {
        model: MODEL_OF[upstream],
        max_tokens: 50,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'url', url: ref } },
              { type: 'text', text: 'what is it' },
            ],
          },
        ],
      },
    ),
  generateContent: (key, ref, upstream) =>
    post(
      `/v1beta/models/${MODEL_OF[upstream]}:generateContent`,
      { 'x-goog-api-key': key },
      {
        contents: [
          { role: 'user', parts: [{ text: 'what is it' }, { fileData: { mimeType: 'image/png', fileUri: ref } }] },
        ],
      },
    ),
};

describe('asset:// in the image parts of every text surface', () => {
  for (const [surface, call] of Object.entries(CALLS)) {
    for (const upstream of ['openai', 'anthropic', 'gemini'] as const) {
      it(`${surface} → ${upstream} upstream: the asset goes inline, never as asset://`, async () => {
        const acct = await gw.account({ balance: FUNDS });
        const asset = await uploadAsset(gw, acct.key, PNG);
        const res = await call(acct.key, asset.reference, upstream);
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        const sent = gw.sim.stats().lastRequestText!;
        expect(sent).not.toContain('asset://');
        expect(sent).toContain(PNG.toString('base64'));
      });
    }
  }

  it("scope rules as everywhere: none → 403, another account's or a missing asset → 400, nothing sent or charged", async () => {
    const owner = await gw.account({ balance: FUNDS });
    const asset = await uploadAsset(gw, owner.key, PNG);
    const none = await gw.account({ balance: FUNDS, key: { asset_access: 'none' } });
    const stranger = await gw.account({ balance: FUNDS });
    const sent = gw.sim.stats().requests;

    const denied = await CALLS['chat completions']!(none.key, asset.reference, 'openai');
    expect(denied.status).toBe(403);
    expect(denied.json.error).toMatchObject({
      code: 'asset_access_denied',
      param: 'messages[0].content[1].image_url.url',
    });
    const theirs = await CALLS.messages!(stranger.key, asset.reference, 'anthropic');
    expect(theirs.status).toBe(400);
    expect(theirs.json).toMatchObject({ type: 'error', error: { code: 'reference_asset_unavailable' } });
    const missing = await CALLS.generateContent!(stranger.key, 'asset://asset_AAAAAAAAAAAAAAAAAAAA', 'gemini');
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.json)).toContain('reference_asset_unavailable');

    expect(gw.sim.stats().requests).toBe(sent);
    await drained(gw);
    for (const who of [none, stranger]) expect(await usersBalance(gw.services.db, who.userId)).toBe(FUNDS);
  });
});
