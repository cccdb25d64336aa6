// Reading tasks back: by id (owner only), listed with cursor paging, and their results behind
// signed stored_url links (PUBLIC_BASE_URL or the request's origin; no API key; short-lived;
// tamper-proof), with the provider's own URL beside them — and without a stored_url when mirroring
// failed for good.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultBytes } from '../../tools/upstream-sim/index.js';
import { offsetClock } from '../support/gateway.js';
import { sleep } from '../support/http.js';
import { errorOf } from '../support/limits.js';
import {
  chargeRows,
  createVideo,
  doneAfterMirrorRetries,
  getJson,
  readTask,
  startTaskGateway,
  videoBody,
  VIDEO_PER_SECOND,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const PUBLIC = 'https://videos.example.test/gw';
const clock = offsetClock();
let gw: TaskGateway;
let pub: TaskGateway;

beforeAll(async () => {
  gw = await startTaskGateway({ clock });
  // Same S3 server, PUBLIC_BASE_URL set; its tasks run on its own workers.
  pub = await startTaskGateway({ s3: gw.s3, env: { PUBLIC_BASE_URL: `${PUBLIC}/` } });
});
afterAll(async () => {
  await pub?.close();
  await gw?.close();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function download(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('GET /v1/videos/{id}', () => {
  it("answers the owner's task and 404 for anybody else's, exactly like a missing id", async () => {
    const a = await gw.account({ balance: 1_000_000 });
    const b = await gw.account({ balance: 1_000_000 });
    const created = await createVideo(gw, a.key, videoBody('owned'));
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = created.json.id as string;
    expect(id).toMatch(/^video_/);
    expect(created.json).toMatchObject({
      object: 'video',
      status: 'queued',
      model: 'vid-sim',
      duration: 5,
      resolution: '720p',
    });

    const own = await readTask(gw, a.key, id);
    expect(own.status).toBe(200);
    expect(own.json.id).toBe(id);

    const foreign = await readTask(gw, b.key, id);
    const missing = await readTask(gw, b.key, 'video_doesnotexist');
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(errorOf(foreign).code).toBe('not_found');
    expect(errorOf(foreign).code).toBe(errorOf(missing).code);
    // Nor can the other account cancel it.
    const cancel = await fetch(`${gw.url}/v1/videos/${id}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.key}` },
    });
    expect(cancel.status).toBe(404);
    // Without a key at all: 401.
    expect((await getJson(`${gw.url}/v1/videos/${id}`)).status).toBe(401);
    await waitSettled(gw, id);
  });
});

describe('GET /v1/videos', () => {
  it('pages newest first with limit/after/has_more, and lists only the own account', async () => {
    const a = await gw.account({ balance: 10_000_000 });
    const b = await gw.account({ balance: 10_000_000 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await createVideo(gw, a.key, videoBody(`page ${i}`));
      expect(res.status).toBe(200);
      ids.push(res.json.id as string);
      await sleep(3); // distinct created_at, so "newest first" is one order
    }
    const other = await createVideo(gw, b.key, videoBody('not yours'));
    expect(other.status).toBe(200);
    const newestFirst = [...ids].reverse();

    const seen: string[] = [];
    let after: string | undefined;
    const pages: boolean[] = [];
    for (let page = 0; page < 5; page++) {
      const res = await getJson(`${gw.url}/v1/videos?limit=2${after ? `&after=${after}` : ''}`, a.key);
      expect(res.status).toBe(200);
      expect(res.json.object).toBe('list');
      const data = res.json.data as { id: string; object: string }[];
      expect(data.every((t) => t.object === 'video')).toBe(true);
      seen.push(...data.map((t) => t.id));
      expect(res.json.first_id).toBe(data[0]?.id ?? null);
      expect(res.json.last_id).toBe(data.at(-1)?.id ?? null);
      pages.push(res.json.has_more as boolean);
      if (!res.json.has_more) break;
      after = res.json.last_id as string;
    }
    expect(seen).toEqual(newestFirst);
    expect(pages).toEqual([true, true, false]);
    const all = await getJson(`${gw.url}/v1/videos?limit=100`, a.key);
    expect((all.json.data as { id: string }[]).map((t) => t.id)).toEqual(newestFirst);
    expect(all.json.has_more).toBe(false);

    const theirs = await getJson(`${gw.url}/v1/videos`, b.key);
    expect((theirs.json.data as { id: string }[]).map((t) => t.id)).toEqual([other.json.id]);
    // Another account's id as a cursor is unknown here.
    expect((await getJson(`${gw.url}/v1/videos?after=${ids[0]}`, b.key)).status).toBe(404);
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'order=asc']) {
      const res = await getJson(`${gw.url}/v1/videos?${bad}`, a.key);
      expect(res.status, bad).toBe(400);
    }
    for (const id of [...ids, other.json.id as string]) await waitSettled(gw, id);
  });
});

describe('stored_url and provider_url', () => {
  it('a succeeded task links its mirrored copy on the request origin: no key needed, exact bytes, tamper-proof, short-lived', async () => {
    const a = await gw.account({ balance: 1_000_000 });
    const created = await createVideo(gw, a.key, videoBody('a cat surfing'));
    const id = created.json.id as string;
    const row = await waitSettled(gw, id);
    expect(row.status).toBe('succeeded');

    const view = (await readTask(gw, a.key, id)).json;
    expect(view).toMatchObject({
      id,
      status: 'succeeded',
      progress: 100,
      charged_micro_usd: 5 * VIDEO_PER_SECOND['720p']!,
    });
    expect(typeof view.completed_at).toBe('number');
    expect(view.provider_url).toBe(`${gw.sim.url}/_sim/files/${row.upstream_id}.mp4`);
    const stored = view.stored_url as string;
    expect(stored.startsWith(`${gw.url}/v1/files/`)).toBe(true);

    // No Authorization header: the link itself is the credential.
    const file = await download(stored);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(file.body.length).toBe(65_536);
    expect(sha(file.body)).toBe(sha(resultBytes(row.upstream_id!, 'video', 0, 65_536)));
    // Range requests work (players seek).
    const part = await download(stored, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.body.equals(resultBytes(row.upstream_id!, 'video', 100, 100))).toBe(true);

    // Tampered: a flipped character in the signature, or in the claims, is a 404.
    const token = stored.slice(stored.lastIndexOf('/') + 1);
    const [payload, mac] = token.split('.') as [string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const forgedClaims = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), e: Date.now() + 10 * 86_400_000 }),
    ).toString('base64url');
    for (const bad of [
      `${payload}.${flip(mac, 3)}`,
      `${flip(payload, 5)}.${mac}`,
      `${forgedClaims}.${mac}`,
      payload,
      'nonsense',
    ]) {
      const res = await download(`${gw.url}/v1/files/${bad}`);
      expect(res.status, bad).toBe(404);
    }

    // Expired: an hour and a bit later (the gateway's clock), the same link is a 404; a fresh read
    // of the task hands out a new link that works.
    clock.advance(61 * 60_000);
    try {
      expect((await download(stored)).status).toBe(404);
      const fresh = (await readTask(gw, a.key, id)).json.stored_url as string;
      expect(fresh).not.toBe(stored);
      const again = await download(fresh);
      expect(again.status).toBe(200);
      expect(sha(again.body)).toBe(sha(file.body));
    } finally {
      clock.set(Date.now());
    }
    // Charged once, at the priced cost.
    const charges = await chargeRows(gw, a.userId);
    expect(charges.map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[id, -5 * VIDEO_PER_SECOND['720p']!]]);
  });

  it('with PUBLIC_BASE_URL set, stored_url starts with it whatever origin the request came to', async () => {
    const a = await pub.account({ balance: 1_000_000 });
    const created = await createVideo(pub, a.key, videoBody('public base'));
    const id = created.json.id as string;
    const row = await waitSettled(pub, id);
    expect(row.status).toBe('succeeded');
    const view = (await readTask(pub, a.key, id)).json;
    const stored = view.stored_url as string;
    expect(stored.startsWith(`${PUBLIC}/v1/files/`)).toBe(true);
    // The public origin is a proxy in front of this gateway: the same path works here.
    const file = await download(`${pub.url}${stored.slice(PUBLIC.length)}`);
    expect(file.status).toBe(200);
    expect(file.body.equals(resultBytes(row.upstream_id!, 'video', 0, 65_536))).toBe(true);
    // Listing hands out the same kind of link.
    const list = await getJson(`${pub.url}/v1/videos`, a.key);
    expect((list.json.data[0].stored_url as string).startsWith(`${PUBLIC}/v1/files/`)).toBe(true);
  });

  it('when mirroring fails for good (the provider link expired first), the task still succeeds with provider_url and no stored_url', async () => {
    const a = await gw.account({ balance: 1_000_000 });
    // The provider's link is dead the moment the task succeeds.
    const created = await createVideo(gw, a.key, videoBody('[[sim:resultUrlTtlMs=0]] gone fast'));
    const id = created.json.id as string;
    // Every mirror attempt fails.
    await doneAfterMirrorRetries(gw, id);
    const row = await waitSettled(gw, id);
    expect(row.status).toBe('succeeded');
    expect(row.stored_keys).toBeNull();
    const view = (await readTask(gw, a.key, id)).json;
    expect(view.status).toBe('succeeded');
    expect(view.stored_url).toBeUndefined();
    expect(view.provider_url).toBe(`${gw.sim.url}/_sim/files/${row.upstream_id}.mp4`);
    // The provider's link really is dead (that is why there is no copy).
    expect((await download(view.provider_url as string)).status).toBe(403);
    // A delivered result is paid for, mirrored or not.
    expect((await chargeRows(gw, a.userId)).map((c) => c.amount_micro_usd)).toEqual([-5 * VIDEO_PER_SECOND['720p']!]);
  });
});
