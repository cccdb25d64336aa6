import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import {
  createVideo,
  startTaskGateway,
  taskRow,
  VIDEO_MODEL,
  videoBody,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('task creation through the routing plan', () => {
  it('a preset of video models creates the task on its model, with the account recorded, and the worker finishes it', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const session = await signIn(gw, acct.email);
    expect(
      (await api(gw, 'POST', '/presets', { token: session.token, body: { slug: 'vids', models: [VIDEO_MODEL] } }))
        .status,
    ).toBe(201);
    const created = await createVideo(
      gw,
      acct.key,
      videoBody('a preset video', { model: '@preset/vids', provider: { only: ['tasks-sim'] } }),
    );
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = (created.json as { id: string }).id;
    const row = await taskRow(gw, id);
    expect(row).toMatchObject({ model: VIDEO_MODEL, provider: 'tasks-sim', upstream_account: 'default' });
    expect((await waitSettled(gw, id)).status).toBe('succeeded');
  });

  it('answers auto with no eligible video model as model_not_found, and an unknown preferred provider as 400', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    expect((await createVideo(gw, acct.key, videoBody('x', { model: 'auto' }))).status).toBe(404);
    const bad = await createVideo(
      gw,
      acct.key,
      videoBody('x', { model: VIDEO_MODEL, provider: { only: ['nowhere'] } }),
    );
    expect(bad.status).toBe(400);
    expect((bad.json as { error: { param: string } }).error.param).toBe('provider.only[0]');
  });
});
