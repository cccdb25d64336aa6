import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTaskGateway, VIDEO_MODEL, type TaskGateway } from '../support/task-gateway.js';

// A body nested tens of thousands deep overflowed the stack of the walkers that read it (assets,
// images, the request hash): a 500. It is refused where the body is read, in the caller's format.
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(() => gw?.close());

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

async function post(path: string, headers: Record<string, string>, body: string) {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe('bodies nested deeper than 1,000 levels', () => {
  it('answer 400 invalid_json on every surface, and nesting within the bound is read as before', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    const auth = { authorization: `Bearer ${acct.key}` };
    const nested = deep(20_000);
    const video = await post(
      '/v1/videos',
      auth,
      `{"model":"${VIDEO_MODEL}","content":[{"type":"text","text":"x"}],"x":${nested}}`,
    );
    expect(video.status).toBe(400);
    expect(video.json.error).toMatchObject({ code: 'invalid_json' });
    const chat = await post('/v1/chat/completions', auth, `{"model":"gpt-sim","messages":${nested}}`);
    expect(chat.status).toBe(400);
    expect(chat.json.error.code).toBe('invalid_json');
    const messages = await post('/v1/messages', { 'x-api-key': acct.key }, `{"model":"gpt-sim","messages":${nested}}`);
    expect(messages.json).toMatchObject({ type: 'error', error: { code: 'invalid_json' } });
    // Within the bound: the body is read and refused for what it says, not for its depth.
    const shallow = await post('/v1/chat/completions', auth, `{"model":"gpt-sim","messages":${deep(900)}}`);
    expect(shallow.status).toBe(400);
    expect(shallow.json.error.code).not.toBe('invalid_json');
  });
});
