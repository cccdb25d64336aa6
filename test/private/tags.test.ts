import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForUsage } from '../support/money.js';
import { startTaskGateway, taskRow, VIDEO_MODEL, waitSettled, type TaskGateway } from '../support/task-gateway.js';

// X-Service-Tags on every private call: the usage record carries the key's tags and the request's,
// whether the call runs as a job, streams, or is a task.
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway();
});
afterAll(() => gw?.close());

const chatInput = { messages: [{ role: 'user', content: 'tag me' }], max_tokens: 2 };

function post(body: Record<string, unknown>, tags?: string) {
  return fetch(`${gw.url}/server/v1/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(tags === undefined ? {} : { 'X-Service-Tags': tags }) },
    body: JSON.stringify(body),
  });
}

describe('X-Service-Tags on private calls', () => {
  it("labels a chat call's, a streamed call's and a task call's usage with the key's tags and the request's", async () => {
    const acct = await gw.account({ balance: 5_000_000, key: { kind: 'private', tags: ['team-a'] } });
    const chat = await post(
      { apiKey: acct.key, clientRequestId: 'c', model: 'gpt-sim', input: chatInput },
      'checkout, eu',
    );
    expect(chat.status).toBe(200);
    const streamed = await post(
      { apiKey: acct.key, clientRequestId: 's', model: 'gpt-sim', stream: true, input: chatInput },
      'search',
    );
    expect(await streamed.text()).toContain('[DONE]');
    const [first, second] = await waitForUsage(gw, acct.userId, 2);
    expect([...first!.tags].sort()).toEqual(['checkout', 'eu', 'team-a']);
    expect([...second!.tags].sort()).toEqual(['search', 'team-a']);

    const task = await post(
      {
        apiKey: acct.key,
        clientRequestId: 'v',
        model: VIDEO_MODEL,
        input: { content: [{ type: 'text', text: 'a tagged fox' }] },
      },
      'video-batch',
    );
    const id = ((await task.json()) as { data: { task_id: string } }).data.task_id;
    expect((await taskRow(gw, id))!.tags.sort()).toEqual(['team-a', 'video-batch']);
    await waitSettled(gw, id);
    const records = await waitForUsage(gw, acct.userId, 3);
    expect([...records[2]!.tags].sort()).toEqual(['team-a', 'video-batch']);
  });

  it('refuses bad tags in the envelope, naming the header, before anything is stored', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: { kind: 'private' } });
    const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`).join(',');
    const body = { apiKey: acct.key, clientRequestId: 'bad-tags', model: 'gpt-sim', input: chatInput };
    const res = await post(body, eleven);
    expect(res.status).toBe(400);
    const refusal = (await res.json()) as { code: number; error_code: string; message: string };
    expect(refusal).toMatchObject({ code: 400, error_code: 'invalid_tags' });
    expect(refusal.message).toContain('X-Service-Tags');
    const stored = await gw.services.db
      .selectFrom('private_calls')
      .select('id')
      .where('user_id', '=', acct.userId)
      .execute();
    expect(stored).toHaveLength(0);
    // The id was never taken: the same call with good tags runs.
    expect((await post(body, 'ok')).status).toBe(200);
  });
});
