import { afterAll, beforeAll, describe, it } from 'vitest';
import { chatLine, jsonl, startBatchGateway } from '../batches/support.js';
import { waitUntil } from '../support/http.js';
import type { Json } from '../support/limits.js';
import { IMAGE_MODEL, type TaskGateway, VIDEO_MODEL, waitSettled } from '../support/task-gateway.js';
import { type CallOptions, RealAnswers, routesOf } from './example-shapes.js';

// The response examples of the routes that start work for the workers — video and image tasks,
// files and batches (OpenAI's and Anthropic's), the private protocol — against the gateway's real
// answers, each task or batch seen once it ended (its fullest answer).
let gw: TaskGateway;
beforeAll(async () => {
  gw = await startBatchGateway();
});
afterAll(() => gw?.close());

/** A line the simulator holds this long: a batch or task still running when it is cancelled. */
const SLOW = '[[sim:taskRunMs=60000]]';

describe('task, file and batch response examples', () => {
  it("have the fields of the routes' real answers", { timeout: 120_000 }, async () => {
    const answers = new RealAnswers(routesOf('tasks'));
    const account = await gw.account({ balance: 20_000_000 });
    const bearer = { authorization: `Bearer ${account.key}` };
    const call = (method: string, path: string, route: string, o: CallOptions = {}) =>
      answers.call(gw.url, method, path, route, { headers: bearer, ...o });

    // Video and image tasks: created, read once they ended, listed; a slow one cancelled.
    for (const [kind, create] of [
      ['videos', { model: VIDEO_MODEL, content: [{ type: 'text', text: 'A lighthouse at dawn' }], duration: 5 }],
      ['images/tasks', { model: IMAGE_MODEL, prompt: 'A lighthouse at dawn', n: 1, size: '1024x1024' }],
    ] as const) {
      const created = await call('post', `/v1/${kind}`, `/v1/${kind}`, { body: create });
      await waitSettled(gw, created.json.id);
      await call('get', `/v1/${kind}/${created.json.id}`, `/v1/${kind}/:id`);
      await call('get', `/v1/${kind}`, `/v1/${kind}`);
      const slowText =
        kind === 'videos' ? { content: [{ type: 'text', text: `${SLOW} a long film` }] } : { prompt: `${SLOW} slow` };
      const slow = await call('post', `/v1/${kind}`, `/v1/${kind}`, { body: { ...create, ...slowText } });
      await call('post', `/v1/${kind}/${slow.json.id}/cancel`, `/v1/${kind}/:id/cancel`, { body: {} });
    }

    // Files and OpenAI's batches: a batch run to its end, its output file read, a slow one cancelled.
    const upload = async (lines: unknown[]) => {
      const form = new FormData();
      form.set('purpose', 'batch');
      form.set('file', new Blob([jsonl(lines)], { type: 'application/jsonl' }), 'requests.jsonl');
      return call('post', '/v1/files', '/v1/files', { form });
    };
    const input = await upload([chatLine('first', 'Say hello.'), chatLine('second', 'Say goodbye.')]);
    const batch = await call('post', '/v1/batches', '/v1/batches', {
      body: {
        input_file_id: input.json.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
        metadata: { job: 'nightly' },
      },
    });
    let ended: Json;
    await waitUntil(
      async () =>
        (ended = (await call('get', `/v1/batches/${batch.json.id}`, '/v1/batches/:id')).json).status === 'completed',
      60_000,
      100,
    );
    await call('get', '/v1/batches', '/v1/batches');
    await call('get', '/v1/files', '/v1/files');
    await call('get', `/v1/files/${ended.output_file_id}`, '/v1/files/:id');
    await call('get', `/v1/files/${ended.output_file_id}/content`, '/v1/files/:id/content');
    const slowLines = await upload([chatLine('slow', 'Say hello. [[sim:latencyMs=3000]]')]);
    const slowBatch = await call('post', '/v1/batches', '/v1/batches', {
      body: { input_file_id: slowLines.json.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
    });
    await call('post', `/v1/batches/${slowBatch.json.id}/cancel`, '/v1/batches/:id/cancel', { body: {} });
    await call('delete', `/v1/files/${input.json.id}`, '/v1/files/:id');

    // Anthropic's Message Batches under both prefixes: one succeeded and one errored result.
    const messagesKey = { 'x-api-key': account.key, 'anthropic-version': '2023-06-01' };
    const params = (text: string, model = 'gpt-sim') => ({
      model,
      max_tokens: 8,
      messages: [{ role: 'user', content: text }],
    });
    for (const prefix of ['/native-messages/v1', '/v1']) {
      const root = `${prefix}/messages/batches`;
      const created = await call('post', root, root, {
        headers: messagesKey,
        body: {
          requests: [
            { custom_id: 'first', params: params('Say hello.') },
            { custom_id: 'second', params: params('Say hello.', 'no-such-model') },
          ],
        },
      });
      await waitUntil(
        async () =>
          (await call('get', `${root}/${created.json.id}`, `${root}/:id`, { headers: messagesKey })).json
            .processing_status === 'ended',
        60_000,
        100,
      );
      await call('get', root, root, { headers: messagesKey });
      await call('get', `${root}/${created.json.id}/results`, `${root}/:id/results`, { headers: messagesKey });
      const slow = await call('post', root, root, {
        headers: messagesKey,
        body: { requests: [{ custom_id: 'slow', params: params('Say hello. [[sim:latencyMs=3000]]') }] },
      });
      await call('post', `${root}/${slow.json.id}/cancel`, `${root}/:id/cancel`, { headers: messagesKey, body: {} });
    }

    // The private protocol: a slow video call cancelled; a chat call answered whole, read again.
    const privateKey = (await gw.account({ balance: 5_000_000, key: { kind: 'private' } })).key;
    const none = {};
    const film = { content: [{ type: 'text', text: `${SLOW} a long film` }] };
    await call('post', '/server/v1/call', '/server/v1/call', {
      headers: none,
      body: { apiKey: privateKey, clientRequestId: 'clip-7', model: VIDEO_MODEL, input: film },
    });
    await call('post', '/server/v1/cancel', '/server/v1/cancel', {
      headers: none,
      body: { apiKey: privateKey, clientRequestId: 'clip-7' },
    });

    const chat = { messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8 };
    await call('post', '/server/v1/call', '/server/v1/call', {
      headers: none,
      body: { apiKey: privateKey, clientRequestId: 'order-1042', model: 'gpt-sim', input: chat },
    });
    await call('post', '/server/v1/getResult', '/server/v1/getResult', {
      headers: none,
      body: { apiKey: privateKey, clientRequestId: 'order-1042' },
    });
    answers.expectExamplesMatch();
  });
});
