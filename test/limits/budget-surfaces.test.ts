// Key budgets on the calls that are not text (docs/reference/limits.md#budgets): video tasks, image
// tasks, embeddings and JSON images are reserved against the budget exactly like the quota caps.
// A budget that fits one call admits it; the next answers 402 `budget_exceeded` in OpenAI's format,
// is charged nothing and holds no reservation afterwards (the account's and the key's budget).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, postJson, type JsonReply } from '../support/limits.js';
import { drained, usageRecords } from '../support/money.js';
import {
  createVideo,
  IMAGE_MODEL,
  IMAGE_PER_IMAGE,
  startTaskGateway,
  taskCatalog,
  taskRows,
  videoBody,
  VIDEO_PER_SECOND,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

const VIDEO_PRICE = 5 * VIDEO_PER_SECOND['720p']!;
const IMAGE_TASK_PRICE = IMAGE_PER_IMAGE['1024x1024']!;
const JSON_IMAGE_PRICE = 40_000;
const FUNDS = 100_000_000;

function catalog(simUrl: string) {
  const base = taskCatalog(simUrl) as { models: unknown[] };
  const models = [
    ...base.models,
    {
      id: 'embed-sim',
      endpoints: ['embeddings'],
      routes: [{ provider: 'sim', upstream_model: 'up-embed' }],
      // A token costs 1 micro-USD: the simulator counts one a word.
      pricing: { input_per_mtok: 1_000_000 },
      max_output_tokens: 1,
    },
    {
      id: 'img-json',
      endpoints: ['images/generations'],
      routes: [{ provider: 'sim', upstream_model: 'up-image' }],
      pricing: { per_image: JSON_IMAGE_PRICE },
    },
  ];
  return { ...base, models };
}

let gw: TaskGateway;
beforeAll(async () => {
  gw = await startTaskGateway({ catalog });
});
afterAll(() => gw?.close());

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

interface Case {
  /** The budget: what the first call may spend and the second would pass. */
  limit: number;
  first(key: string): Promise<JsonReply>;
  second(key: string): Promise<JsonReply>;
  /** Waits until the first call's charge is final; returns what it cost. */
  settled(first: JsonReply): Promise<number>;
}

const settledTask = async (first: JsonReply) => (await waitSettled(gw, first.json.id)).charged_micro_usd;

const CASES: Record<string, Case> = {
  'video tasks': {
    limit: VIDEO_PRICE,
    first: (key) => createVideo(gw, key, videoBody('the one the budget covers')),
    second: (key) => createVideo(gw, key, videoBody('one more')),
    settled: settledTask,
  },
  'image tasks': {
    limit: IMAGE_TASK_PRICE,
    first: (key) => postJson(gw, '/v1/images/tasks', key, { model: IMAGE_MODEL, prompt: 'a fox' }),
    second: (key) => postJson(gw, '/v1/images/tasks', key, { model: IMAGE_MODEL, prompt: 'another fox' }),
    settled: settledTask,
  },
  'JSON images': {
    limit: JSON_IMAGE_PRICE,
    first: (key) => postJson(gw, '/v1/images/generations', key, { model: 'img-json', prompt: 'a fox', n: 1 }),
    second: (key) => postJson(gw, '/v1/images/generations', key, { model: 'img-json', prompt: 'a fox', n: 1 }),
    settled: async () => JSON_IMAGE_PRICE,
  },
  embeddings: {
    // Ten words cost 10; two thousand are reserved at least 2,000, past what is left.
    limit: 1_000,
    first: (key) => postJson(gw, '/v1/embeddings', key, { model: 'embed-sim', input: words(10) }),
    second: (key) => postJson(gw, '/v1/embeddings', key, { model: 'embed-sim', input: words(2_000) }),
    settled: async () => 10,
  },
};

describe('a key budget holds every kind of call', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: the call the budget covers runs; the next answers 402 budget_exceeded, charged and holding nothing`, async () => {
      const acct = await gw.account({ balance: FUNDS, key: { budget: { limit_micro_usd: c.limit, period: 'day' } } });
      const first = await c.first(acct.key);
      expect(first.status, JSON.stringify(first.json)).toBe(200);
      const cost = await c.settled(first);
      await drained(gw);

      const refused = await c.second(acct.key);
      expect(refused.status, JSON.stringify(refused.json)).toBe(402);
      expect(errorOf(refused)).toMatchObject({ code: 'budget_exceeded', type: 'insufficient_quota' });
      expect(errorOf(refused).message).toMatch(
        new RegExp(`^this key's daily budget of ${c.limit} micro-USD would be exceeded`),
      );

      await drained(gw);
      const charged = (await usageRecords(gw.services.db, acct.userId)).filter((r) => r.charged_micro_usd > 0);
      expect(charged.map((r) => r.charged_micro_usd)).toEqual([cost]);
      expect(await taskRows(gw, acct.userId)).toHaveLength(name.endsWith('tasks') ? 1 : 0);
      // Nothing set aside: not against the balance, not against the key's budget.
      expect(await gw.services.redis.hlen(gw.services.redisKeys.reservations(acct.userId))).toBe(0);
      // The key's budget counter exists (the first call reserved against it) and is back at 0.
      expect(await gw.services.redis.get(`${gw.env.REDIS_PREFIX}key:{${acct.keyId}}:reserved`)).toBe('0');
    });
  }
});
