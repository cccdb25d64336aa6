import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pngOfSize } from '../support/images.js';
import { drained } from '../support/money.js';
import { type CallOptions, RealAnswers, routesOf } from './example-shapes.js';

// The response examples of the key routes answered in the request (the text surfaces, embeddings,
// JSON images, models, estimates, usage, scores, assets, the probes) against the gateway's real
// answers, under every prefix each route has. Tasks, files and batches: task-examples.test.ts.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    catalog: (simUrl) => {
      const base = testCatalog(simUrl) as { models: unknown[] };
      return {
        ...base,
        models: [
          ...base.models,
          {
            id: 'img-sim',
            endpoints: ['images/generations', 'images/edits'],
            routes: [{ provider: 'sim', upstream_model: 'up-image' }],
            pricing: { per_image: { '1024x1024': 40_000 } },
          },
          {
            id: 'embed-sim',
            endpoints: ['embeddings'],
            routes: [{ provider: 'sim', upstream_model: 'up-embed' }],
            pricing: { input_per_mtok: 100_000 },
          },
        ],
      };
    },
  });
});
afterAll(() => gw?.close());

describe('key route response examples', () => {
  it("have the fields of the routes' real answers", { timeout: 90_000 }, async () => {
    const answers = new RealAnswers(routesOf('api'));
    const account = await gw.account({
      balance: 5_000_000,
      key: {
        usage_access: true,
        tags: ['web'],
        monthly_micro_usd: 50_000_000,
        budget: { limit_micro_usd: 10_000_000, period: 'month', soft_threshold_percent: 80 },
      },
    });
    const bearer = { authorization: `Bearer ${account.key}` };
    const call = (method: string, path: string, route: string, o: CallOptions = {}) =>
      answers.call(gw.url, method, path, route, { headers: bearer, ...o });
    const chat = { model: 'gpt-sim', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8 };
    await call('post', '/v1/chat/completions', '/v1/chat/completions', { body: chat });
    await call('post', '/v1/responses', '/v1/responses', {
      body: { model: 'gpt-sim', input: 'Say hello.', max_output_tokens: 8 },
    });
    await call('post', '/v1/embeddings', '/v1/embeddings', {
      body: { model: 'embed-sim', input: ['first text', 'second text'] },
    });
    await call('post', '/v1/images/generations', '/v1/images/generations', {
      body: { model: 'img-sim', prompt: 'A lighthouse at dawn', n: 1, size: '1024x1024' },
    });
    const png = `data:image/png;base64,${pngOfSize(512).toString('base64')}`;
    await call('post', '/v1/images/edits', '/v1/images/edits', {
      body: { model: 'img-sim', prompt: 'Add a boat', images: [{ image_url: png }], size: '1024x1024' },
    });

    const messagesKey = { 'x-api-key': account.key, 'anthropic-version': '2023-06-01' };
    const contentKey = { 'x-vendor-api-key': account.key };
    const message = { model: 'gpt-sim', max_tokens: 8, messages: [{ role: 'user', content: 'Say hello.' }] };
    const contents = [{ role: 'user', parts: [{ text: 'Say hello.' }] }];
    for (const prefix of ['/native-messages/v1', '/v1']) {
      await call('post', `${prefix}/messages`, `${prefix}/messages`, { headers: messagesKey, body: message });
      await call('post', `${prefix}/messages/count_tokens`, `${prefix}/messages/count_tokens`, {
        headers: messagesKey,
        body: { model: 'gpt-sim', messages: message.messages },
      });
    }
    for (const prefix of ['/native-content/v1beta', '/v1beta']) {
      const model = `${prefix}/models/gpt-sim`;
      await call('get', `${prefix}/models`, `${prefix}/models`, { headers: contentKey });
      await call('get', model, `${prefix}/models/*model`, { headers: contentKey });
      await call('post', `${model}:generateContent`, `${prefix}/models/*model:generateContent`, {
        headers: contentKey,
        body: { contents, generationConfig: { maxOutputTokens: 8 } },
      });
      await call('post', `${model}:streamGenerateContent?alt=sse`, `${prefix}/models/*model:streamGenerateContent`, {
        headers: contentKey,
        body: { contents, generationConfig: { maxOutputTokens: 8 } },
      });
      await call('post', `${model}:countTokens`, `${prefix}/models/*model:countTokens`, {
        headers: contentKey,
        body: { contents },
      });
      const embed = `${prefix}/models/embed-sim`;
      await call('post', `${embed}:embedContent`, `${prefix}/models/*model:embedContent`, {
        headers: contentKey,
        body: { content: { parts: [{ text: 'The quick brown fox' }] } },
      });
      await call('post', `${embed}:batchEmbedContents`, `${prefix}/models/*model:batchEmbedContents`, {
        headers: contentKey,
        body: {
          requests: ['first text', 'second text'].map((text) => ({
            model: 'models/embed-sim',
            content: { parts: [{ text }] },
          })),
        },
      });
    }

    await call('get', '/v1/models', '/v1/models');
    await call('get', '/v1/models/gpt-sim', '/v1/models/*id');
    await call('post', '/v1/estimates', '/v1/estimates', { body: { endpoint: 'chat/completions', payload: chat } });
    await drained(gw);
    await call('get', '/v1/key/usage', '/v1/key/usage');
    const day = new Date().toISOString().slice(0, 10);
    await call('get', `/v1/usage/report?group_by=model&start=${day}&end=${day}`, '/v1/usage/report');
    const logs = await call('get', '/v1/usage/logs', '/v1/usage/logs');
    await call('post', '/v1/scores', '/v1/scores', {
      body: { request_id: logs.json.data[0].request_id, name: 'helpfulness', value: 0.9, comment: 'clear answer' },
    });

    const bytes = pngOfSize(1024);
    const reserved = await call('post', '/v1/assets', '/v1/assets', {
      body: { filename: 'diagram.png', content_type: 'image/png', size_bytes: bytes.length },
    });
    const put = await fetch(reserved.json.upload_url, { method: 'PUT', headers: reserved.json.headers, body: bytes });
    expect(put.status).toBe(200);
    answers.record('put', '/v1/uploads/:token', await put.json());
    const asset = await call(
      'post',
      `/v1/assets/uploads/${reserved.json.upload_id}/complete`,
      '/v1/assets/uploads/:uploadId/complete',
    );
    await call('get', '/v1/assets', '/v1/assets');
    await call('get', `/v1/assets/${asset.json.id}`, '/v1/assets/:id');
    await call('get', `/v1/assets/${asset.json.id}/content`, '/v1/assets/:id/content');
    await call('get', '/healthz', '/healthz', { headers: {} });
    await call('get', '/readyz', '/readyz', { headers: {} });

    answers.expectExamplesMatch();
  });
});
