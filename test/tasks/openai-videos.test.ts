// A model routed to the openai-videos protocol: created and polled on the OpenAI-style videos API,
// its result fetched from /videos/{id}/content with the provider's credentials and mirrored.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultBytes } from '../../tools/upstream-sim/index.js';
import { usersBalance } from '../support/money.js';
import {
  chargeRows,
  createVideo,
  OPENAI_VIDEO_MODEL,
  OPENAI_VIDEO_PER_SECOND,
  readTask,
  startTaskGateway,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(() => gw?.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('openai-videos', () => {
  it('completes, is mirrored from /videos/{id}/content, and is charged its price once', async () => {
    const funds = 1_000_000;
    const a = await gw.account({ balance: funds });
    const body = {
      model: OPENAI_VIDEO_MODEL,
      content: [{ type: 'text', text: '[[sim:resultBytes=300000]] a paper boat' }],
      duration: 8,
    };
    const created = await createVideo(gw, a.key, body);
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json).toMatchObject({
      object: 'video',
      status: 'queued',
      model: OPENAI_VIDEO_MODEL,
      duration: 8,
      resolution: '720p',
    });
    const id = created.json.id as string;

    const row = await waitSettled(gw, id);
    expect(row.status).toBe('succeeded');
    const stats = gw.sim.stats().tasks;
    expect(stats['openai-videos']).toMatchObject({ taskCreates: 1, resultDownloads: 1 });
    expect(stats['content-tasks'].taskCreateRequests).toBe(0);
    // The upstream was asked for what the client asked: the prompt, 8 seconds, 720p as a frame size.
    const upstream = gw.sim.tasks().find((t) => t.id === row.upstream_id)!;
    expect(upstream).toMatchObject({ protocol: 'openai-videos', model: 'sora-2', status: 'succeeded' });
    expect(gw.sim.stats().lastRequestBody).toMatchObject({
      model: 'sora-2',
      prompt: '[[sim:resultBytes=300000]] a paper boat',
      seconds: '8',
      size: '1280x720',
    });

    const view = (await readTask(gw, a.key, id)).json;
    const price = 8 * OPENAI_VIDEO_PER_SECOND;
    expect(view).toMatchObject({ status: 'succeeded', charged_micro_usd: price });
    // The content is behind the provider's credentials: there is no public provider link to hand out.
    expect(view.provider_url).toBeUndefined();
    const res = await fetch(view.stored_url as string);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(300_000);
    expect(sha(bytes)).toBe(sha(resultBytes(row.upstream_id!, 'video', 0, 300_000)));

    expect((await chargeRows(gw, a.userId)).map((c) => [c.request_id, c.amount_micro_usd])).toEqual([[id, -price]]);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(funds - price);
  });

  it('an upstream failure ends the task failed with the error, and charges nothing', async () => {
    const funds = 1_000_000;
    const a = await gw.account({ balance: funds });
    const created = await createVideo(gw, a.key, {
      model: OPENAI_VIDEO_MODEL,
      content: [{ type: 'text', text: '[[sim:taskFault=fail]] no' }],
    });
    const row = await waitSettled(gw, created.json.id as string);
    expect(row.status).toBe('failed');
    const view = (await readTask(gw, a.key, row.id)).json;
    expect(view.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(view.stored_url).toBeUndefined();
    expect(await chargeRows(gw, a.userId)).toEqual([]);
    expect(await usersBalance(gw.services.db, a.userId)).toBe(funds);
  });
});
