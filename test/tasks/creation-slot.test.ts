import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatRequest, postChat, readEvents } from '../support/http.js';
import { createVideo, startTaskGateway, videoBody, type TaskGateway } from '../support/task-gateway.js';

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('a task creation and the concurrency limit', () => {
  it('holds a slot while the creation runs (refused when the key has none free) and gives it back once the task is accepted', async () => {
    const { key } = await gw.account({ balance: 10_000_000, key: { concurrency_limit: 1 } });
    const stream = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(
        chatRequest('gpt-sim', '[[sim:chunkDelayMs=100]] hold the slot', { stream: true, max_tokens: 10 }),
      ),
    });
    expect(stream.status).toBe(200);
    const refused = await createVideo(gw, key, videoBody('no slot free'));
    expect(refused.status).toBe(429);
    expect((refused.json as { error: { message: string } }).error.message).toMatch(/concurrency/);
    await readEvents(stream);

    expect((await createVideo(gw, key, videoBody('a slot is free'))).status).toBe(200);
    // The task runs upstream for a while, but its slot went back with the creation.
    expect((await postChat(gw.url, key, chatRequest('gpt-sim', 'and now a chat', { max_tokens: 2 }))).status).toBe(200);
  });
});
