// An Idempotency-Key names one operation for 24 hours: the same key with another body is refused,
// and after the window (purged by maintenance, or taken over on first reuse) it is free again.
// Malformed keys are refused before anything happens.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offsetClock } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { errorOf } from '../support/limits.js';
import { usersBalance } from '../support/money.js';
import {
  chargeRows,
  createVideo,
  startTaskGateway,
  taskRows,
  videoBody,
  VIDEO_PER_SECOND,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const DAY = 24 * 60 * 60 * 1000;
const PRICE = 5 * VIDEO_PER_SECOND['720p']!;
const clock = offsetClock();
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway({ clock });
});
afterAll(() => gw?.close());

function keyRow(userId: string, key: string) {
  return gw.services.db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .executeTakeFirst();
}

describe('the same Idempotency-Key with a different body', () => {
  it('answers 422 idempotency_key_reused and changes nothing; key order and spacing do not count as different', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const headers = { 'idempotency-key': 'order-42' };
    const first = await createVideo(gw, a.key, videoBody('a red kite', { duration: 5 }), headers);
    expect(first.status).toBe(200);
    await waitSettled(gw, first.json.id as string);
    const submits = gw.sim.stats().tasks['content-tasks'].taskCreateRequests;

    for (const other of [
      videoBody('a blue kite', { duration: 5 }),
      videoBody('a red kite', { duration: 10 }),
      videoBody('a red kite'),
    ]) {
      const res = await createVideo(gw, a.key, other, headers);
      expect(res.status, JSON.stringify(other)).toBe(422);
      expect(errorOf(res).code).toBe('idempotency_key_reused');
      expect(errorOf(res).param).toBe('Idempotency-Key');
    }
    // The same request written differently (key order, white space) is the same request.
    const reordered = `{ "duration": 5,\n  "content": [{"text": "a red kite", "type": "text"}], "model": "vid-sim" }`;
    const same = await createVideo(gw, a.key, reordered, headers);
    expect(same.status).toBe(200);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(same.json.id).toBe(first.json.id);

    expect(await taskRows(gw, a.userId)).toHaveLength(1);
    expect(gw.sim.stats().tasks['content-tasks'].taskCreateRequests).toBe(submits);
    expect(await chargeRows(gw, a.userId)).toHaveLength(1);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(10 * PRICE - PRICE);
  });
});

describe('after 24 hours the key is free again', () => {
  it('reused after the window: a new task (the expired key is taken over), charged on its own', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const headers = { 'idempotency-key': 'daily-report' };
    const first = await createVideo(gw, a.key, videoBody('monday'), headers);
    expect(first.status).toBe(200);
    await waitSettled(gw, first.json.id as string);
    // Within the window, still a replay (even with 23 h 59 min gone).
    clock.advance(DAY - 60_000);
    const replay = await createVideo(gw, a.key, videoBody('monday'), headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.id).toBe(first.json.id);

    clock.advance(2 * 60_000);
    // Even a different body: the old operation is forgotten.
    const fresh = await createVideo(gw, a.key, videoBody('tuesday'), headers);
    expect(fresh.status, JSON.stringify(fresh.json)).toBe(200);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.json.id).not.toBe(first.json.id);
    const row = await waitSettled(gw, fresh.json.id as string);
    expect(row.status).toBe('succeeded');
    expect((await keyRow(a.userId, 'daily-report'))?.task_id).toBe(fresh.json.id);
    // And the new result is what the key replays now.
    const again = await createVideo(gw, a.key, videoBody('tuesday'), headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.id).toBe(fresh.json.id);
    expect((await chargeRows(gw, a.userId)).map((c) => c.request_id).sort()).toEqual(
      [first.json.id, fresh.json.id].sort(),
    );
  });

  it('the maintenance job purges keys past their window', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const headers = { 'idempotency-key': 'purge-me' };
    const first = await createVideo(gw, a.key, videoBody('to be purged'), headers);
    await waitSettled(gw, first.json.id as string);
    expect(await keyRow(a.userId, 'purge-me')).toBeDefined();
    clock.advance(DAY + 1_000);
    // The maintenance loop (every MAINTENANCE_EVERY_MS) deletes the row.
    await waitUntil(async () => (await keyRow(a.userId, 'purge-me')) === undefined, 5_000, 50);
    const fresh = await createVideo(gw, a.key, videoBody('to be purged'), headers);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.json.id).not.toBe(first.json.id);
    await waitSettled(gw, fresh.json.id as string);
  });
});

describe('malformed Idempotency-Key', () => {
  /** Raw node:http, so header values fetch() would refuse still reach the gateway. */
  function post(key: string, value: string | undefined): Promise<{ status: number; json: any }> {
    const body = JSON.stringify(videoBody('malformed key'));
    return new Promise((resolve, reject) => {
      const req = request(`${gw.url}/v1/videos`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          ...(value === undefined ? {} : { 'idempotency-key': value }),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a tab inside', 'abc\tdef'],
    ['a non-ASCII character', 'cl\u00e9'],
  ])('%s → 400 naming Idempotency-Key, nothing created', async (_name, value) => {
    const a = await gw.account({ balance: 10 * PRICE });
    const res = await post(a.key, value);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('Idempotency-Key');
    expect(await taskRows(gw, a.userId)).toEqual([]);
  });

  it('255 printable characters are a valid key; an empty header is no key at all', async () => {
    const a = await gw.account({ balance: 10 * PRICE });
    const longest = `${'~'.repeat(127)} ${'!'.repeat(127)}`;
    expect(longest).toHaveLength(255);
    const ok = await post(a.key, longest);
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    const replay = await post(a.key, longest);
    expect(replay.json.id).toBe(ok.json.id);

    // Empty: handled as absent, so each call is a task of its own.
    const one = await post(a.key, '');
    const two = await post(a.key, '');
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(one.json.id).not.toBe(two.json.id);
    const keys = await gw.services.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('user_id', '=', a.userId)
      .execute();
    expect(keys.map((k) => k.key)).toEqual([longest]);
    for (const id of [ok.json.id, one.json.id, two.json.id]) await waitSettled(gw, id as string);
  });
});
