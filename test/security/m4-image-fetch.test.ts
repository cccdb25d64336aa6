import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rehostExternalImages } from '../../shared/assets/rehost.js';
import { maintenance } from '../../workers/tasks/maintenance.js';
import { PRICING, surfacesCatalog } from '../surfaces/catalog.js';
import { offsetClock, startTestGateway, type TestGateway } from '../support/gateway.js';
import { postChat } from '../support/http.js';
import { pngClaiming, pngOfSize } from '../support/images.js';
import { drained, usageRecords, usersBalance } from '../support/money.js';

// Issue 27, M4: image URLs were fetched before the call was admitted, all at once and without a
// count limit (500 concurrent reproduced, 10 MiB each, then base64): any key, even one without a
// balance, could run the API out of memory. Re-hosting also ran before admission, and kept its
// `fetched/` objects for good.

const LIMITS = {
  IMAGE_FETCH_MAX_IMAGES: '5',
  IMAGE_FETCH_CONCURRENCY: '2',
  IMAGE_FETCH_TOTAL_BYTES: '700000',
  IMAGE_FETCH_TRUSTED_ADDRESSES: '127.0.0.1',
};

/** An image host: counts requests and the most in flight at once; `/img/<bytes>?delay=<ms>`. */
let images: Server;
let imagesUrl: string;
const seen = { requests: 0, inFlight: 0, maxInFlight: 0 };
/** A host that accepts TCP connections and drops them (an https URL the test can count). */
let dropper: TcpServer;
let dropperPort: number;
let connections = 0;

const clock = offsetClock();
let gw: TestGateway;
beforeAll(async () => {
  images = createHttpServer((req, res) => {
    seen.requests++;
    seen.maxInFlight = Math.max(seen.maxInFlight, ++seen.inFlight);
    const url = new URL(req.url!, 'http://x');
    // Labelled images that are not what they say: a page, and a tiny PNG claiming 60000 × 60000.
    if (url.pathname === '/fake.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end('<html>');
    if (url.pathname === '/bomb.png') {
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(pngClaiming(60_000, 60_000));
    }
    const bytes = Number(url.pathname.split('/')[2] ?? 100);
    setTimeout(
      () => {
        seen.inFlight--;
        res.writeHead(200, { 'content-type': 'image/png' }).end(pngOfSize(bytes));
      },
      Number(url.searchParams.get('delay') ?? 0),
    );
  }).listen(0, '127.0.0.1');
  dropper = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  }).listen(0, '127.0.0.1');
  await Promise.all([
    new Promise((r) => images.once('listening', r)),
    new Promise((r) => dropper.once('listening', r)),
  ]);
  imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  dropperPort = (dropper.address() as AddressInfo).port;
  gw = await startTestGateway({
    clock,
    env: LIMITS,
    catalog: (url) => {
      const base = surfacesCatalog(url);
      const edits = {
        id: 'img-fetch',
        endpoints: ['images/generations', 'images/edits'],
        routes: [{ provider: 'sim-openai', upstream_model: 'up-image' }],
        pricing: { ...PRICING, per_image: 40_000 },
        accepts_urls: false,
      };
      return { ...base, models: [...base.models, edits] };
    },
  });
});
afterAll(async () => {
  await gw.close();
  images.close();
  dropper.close();
});

/** A chat call to the generateContent model (which reads only inline images: the gateway fetches them). */
function withImages(urls: string[]) {
  return {
    model: 'gemini-sim',
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'compare' }, ...urls.map((url) => ({ type: 'image_url', image_url: { url } }))],
      },
    ],
  };
}

async function postEdit(
  key: string,
  urls: string[],
): Promise<{ status: number; json: { error: { code: string; param: string } } }> {
  const res = await fetch(`${gw.url}/v1/images/edits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'img-fetch',
      prompt: 'make it green',
      size: '1024x1024',
      images: urls.map((image_url) => ({ image_url })),
    }),
  });
  return { status: res.status, json: (await res.json()) as { error: { code: string; param: string } } };
}

const errorOf = (text: string) => (JSON.parse(text) as { error: { code: string; param: string } }).error;

describe('M4: image fetches', () => {
  it('a key with no balance makes the gateway fetch nothing', async () => {
    const broke = await gw.account({ balance: 0 });
    const before = seen.requests;
    const res = await postChat(gw.url, broke.key, withImages([1, 2, 3].map((i) => `${imagesUrl}/img/100?n=${i}`)));
    expect(res.status, res.text).toBe(402);
    expect(seen.requests).toBe(before);
    // Re-hosting for a model that cannot fetch URLs itself: not one connection either.
    const edit = await postEdit(broke.key, [`https://127.0.0.1:${dropperPort}/a.png`]);
    expect(edit.status).toBe(402);
    expect(connections).toBe(0);
  });

  it('more image URLs than IMAGE_FETCH_MAX_IMAGES answer 400 naming the first one too many, and nothing is fetched', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const before = seen.requests;
    const res = await postChat(
      gw.url,
      acct.key,
      withImages([1, 2, 3, 4, 5, 6].map((i) => `${imagesUrl}/img/100?n=${i}`)),
    );
    expect(res.status, res.text).toBe(400);
    expect(errorOf(res.text)).toMatchObject({ code: 'invalid_request', param: 'messages[0].content[6]' });
    const edit = await postEdit(
      acct.key,
      [1, 2, 3, 4, 5, 6].map((i) => `https://127.0.0.1:${dropperPort}/${i}.png`),
    );
    expect(edit.status).toBe(400);
    expect(edit.json.error).toMatchObject({ code: 'invalid_request', param: 'images[5].image_url' });
    expect(seen.requests).toBe(before);
    expect(connections).toBe(0);
  });

  it('fetches a few at a time, and refuses images past the total with the reservation given back', async () => {
    const funds = 1_000_000;
    const acct = await gw.account({ balance: funds });
    seen.maxInFlight = 0;
    const before = seen.requests;
    const ok = await postChat(
      gw.url,
      acct.key,
      withImages([1, 2, 3, 4, 5].map((i) => `${imagesUrl}/img/1000?delay=100&n=${i}`)),
    );
    expect(ok.status, ok.text).toBe(200);
    expect(seen.requests - before).toBe(5);
    expect(seen.maxInFlight).toBe(2);

    const big = await postChat(gw.url, acct.key, withImages([1, 2, 3].map((i) => `${imagesUrl}/img/300000?n=${i}`)));
    expect(big.status, big.text).toBe(400);
    expect(errorOf(big.text).param).toMatch(/^messages\[0\]\.content\[[23]\]$/);
    // A fetch refused after admission: the call is recorded, charged nothing, its reservation back.
    await drained(gw);
    const records = await usageRecords(gw.services.db, acct.userId);
    const refused = records.find((r) => r.status_code === 400)!;
    expect(refused.charged_micro_usd).toBe(0);
    const charged = records.reduce((s, r) => s + r.charged_micro_usd, 0);
    expect(await usersBalance(gw.services.db, acct.userId)).toBe(funds - charged);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(funds - charged);
  });

  it('an admitted re-hosting call whose fetch fails is charged nothing', async () => {
    const funds = 1_000_000;
    const acct = await gw.account({ balance: funds });
    const edit = await postEdit(acct.key, [`https://127.0.0.1:${dropperPort}/a.png`]);
    expect(edit.status).toBe(400);
    expect(edit.json.error).toMatchObject({ code: 'reference_fetch_failed', param: 'images[0].image_url' });
    expect(connections).toBe(1);
    await drained(gw);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(funds);
  });

  it('a fetched image is checked like an upload: its type from its bytes, its size from its header', async () => {
    const funds = 1_000_000;
    const acct = await gw.account({ balance: funds });
    for (const [path, code] of [
      ['fake.png', 'invalid_image'],
      ['bomb.png', 'invalid_image'],
    ] as const) {
      const chat = await postChat(gw.url, acct.key, withImages([`${imagesUrl}/img/100`, `${imagesUrl}/${path}`]));
      expect(chat.status, chat.text).toBe(400);
      expect(errorOf(chat.text)).toMatchObject({ code, param: 'messages[0].content[2]' });
      // Re-hosting (image edits and tasks for models that fetch nothing) runs the same check.
      const s = gw.services;
      const ctx = {
        db: s.db,
        storage: s.storage,
        linkSecret: s.linkSecret,
        baseUrl: gw.url,
        ttlMs: 60_000,
        now: clock.now(),
        limits: s.config.imageFetch,
      };
      await expect(
        rehostExternalImages(ctx, acct.userId, { images: [{ image_url: `${imagesUrl}/${path}` }] }),
      ).rejects.toMatchObject({ code, param: 'images[0].image_url' });
    }
    await drained(gw);
    expect((await gw.services.balances.currentBalance(acct.userId))?.balance).toBe(funds);
  });

  it('the maintenance job removes fetched images once their links expired', async () => {
    const s = gw.services;
    const ctx = {
      db: s.db,
      storage: s.storage,
      linkSecret: s.linkSecret,
      baseUrl: gw.url,
      ttlMs: 60_000,
      now: clock.now(),
      limits: s.config.imageFetch,
    };
    await rehostExternalImages(ctx, 'user-m4', {
      content: [{ type: 'image_url', image_url: { url: `${imagesUrl}/img/100` } }],
    });
    const [row] = await s.db.selectFrom('fetched_objects').selectAll().where('user_id', '=', 'user-m4').execute();
    expect(row!.object_key.startsWith('fetched/user-m4/')).toBe(true);
    expect(await s.storage.head(row!.object_key)).toBeDefined();

    await maintenance(s, 60_000);
    expect(await s.storage.head(row!.object_key)).toBeDefined(); // its link still works
    clock.advance(61_000);
    await maintenance(s, 60_000);
    expect(await s.storage.head(row!.object_key)).toBeUndefined();
    expect(await s.db.selectFrom('fetched_objects').selectAll().where('user_id', '=', 'user-m4').execute()).toEqual([]);
  });
});
