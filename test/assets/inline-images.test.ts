import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pngClaiming, pngOfSize } from '../support/images.js';
import { drained, usersBalance } from '../support/money.js';
import { MODEL_OF, surfacesCatalog } from '../surfaces/catalog.js';

// Issue 30, part 6: an image a text call carries inline (a data URI, a base64 source, inlineData) is
// checked like an upload on every surface — its type read from its bytes and equal to its label, at
// most 40 MP by its header — before anything is reserved: a 400 naming the field, charged nothing.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
});
afterAll(() => gw?.close());

const FUNDS = 1_000_000;
const b64 = (bytes: Buffer) => bytes.toString('base64');
const HTML = Buffer.from('<html>not an image</html>');

async function post(path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const chat = (key: string, url: string) =>
  post(
    '/v1/chat/completions',
    { authorization: `Bearer ${key}` },
    {
      model: MODEL_OF.openai,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is it' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    },
  );
const messages = (key: string, mediaType: string, data: string) =>
  post(
    '/v1/messages',
    { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    {
      model: MODEL_OF.anthropic,
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: mediaType, data } },
            { type: 'text', text: 'what is it' },
          ],
        },
      ],
    },
  );
const content = (key: string, mimeType: string, data: string) =>
  post(
    `/v1beta/models/${MODEL_OF.gemini}:generateContent`,
    { 'x-goog-api-key': key },
    {
      contents: [{ role: 'user', parts: [{ text: 'what is it' }, { inlineData: { mimeType, data } }] }],
    },
  );

describe('inline images are checked like uploads on every text surface', () => {
  it('a valid inline PNG passes on each surface', async () => {
    const acct = await gw.account({ balance: FUNDS });
    const png = b64(pngOfSize(200));
    expect((await chat(acct.key, `data:image/png;base64,${png}`)).status).toBe(200);
    expect((await messages(acct.key, 'image/png', png)).status).toBe(200);
    expect((await content(acct.key, 'image/png', png)).status).toBe(200);
  });

  it('refuses what is not an image, a wrong label and a 60000 × 60000 header, naming the field, charging nothing', async () => {
    const acct = await gw.account({ balance: FUNDS });
    const sent = gw.sim.stats().requests;
    const html = await chat(acct.key, `data:image/png;base64,${b64(HTML)}`);
    expect(html.status).toBe(400);
    expect(html.json.error).toMatchObject({ code: 'invalid_image', param: 'messages[0].content[1].image_url' });

    const mislabelled = await messages(acct.key, 'image/jpeg', b64(pngOfSize(200)));
    expect(mislabelled.status).toBe(400);
    expect(mislabelled.json).toMatchObject({ type: 'error', error: { code: 'unsupported_media_type' } });

    const bomb = await content(acct.key, 'image/png', b64(pngClaiming(60_000, 60_000)));
    expect(bomb.status).toBe(400);
    expect(bomb.json.error.message).toContain('contents[0].parts[1].inlineData');

    expect(gw.sim.stats().requests).toBe(sent); // nothing went upstream
    await drained(gw);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(FUNDS);
  });
});
