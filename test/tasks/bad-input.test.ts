// Creating calls that must be refused before anything happens: 4xx naming the field, no money
// moved or set aside, no task row, no job, nothing sent upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, postJson } from '../support/limits.js';
import {
  chargeRows,
  IMAGE_MODEL,
  jobCount,
  startTaskGateway,
  taskRows,
  VIDEO_MODEL,
  type TaskGateway,
} from '../support/task-gateway.js';
import { pngOfSize } from '../support/images.js';
import { usersBalance } from '../support/money.js';

let gw: TaskGateway;
let acct: { userId: string; key: string };
let noAssets: { userId: string; key: string };
const FUNDS = 1_000_000;

beforeAll(async () => {
  gw = await startTaskGateway();
  acct = await gw.account({ balance: FUNDS });
  noAssets = await gw.account({ balance: FUNDS, key: { asset_access: 'none' } });
});
afterAll(() => gw?.close());

const text = { type: 'text', text: 'a lighthouse at dusk' };
const image = (url: string, role?: string) => ({ type: 'image_url', ...(role ? { role } : {}), image_url: { url } });
const dataUri = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const png = dataUri('image/png', pngOfSize(120));

const VIDEO_CASES: [string, unknown, number, string, string?][] = [
  ['missing model', { content: [text] }, 400, 'model'],
  ['empty model', { model: '', content: [text] }, 400, 'model'],
  ['unknown model', { model: 'no-such-model', content: [text] }, 404, 'model', 'model_not_found'],
  ['a chat model (does not serve videos)', { model: 'gpt-sim', content: [text] }, 404, 'model', 'model_not_found'],
  [
    'an image-task model (does not serve videos)',
    { model: IMAGE_MODEL, content: [text] },
    404,
    'model',
    'model_not_found',
  ],
  ['missing content', { model: VIDEO_MODEL }, 400, 'content'],
  ['empty content', { model: VIDEO_MODEL, content: [] }, 400, 'content'],
  ['content not an array', { model: VIDEO_MODEL, content: 'a cat' }, 400, 'content'],
  [
    'unknown part type',
    { model: VIDEO_MODEL, content: [{ type: 'audio_url', audio_url: { url: 'https://x.test/a.mp3' } }] },
    400,
    'content[0].type',
  ],
  ['empty text part', { model: VIDEO_MODEL, content: [{ type: 'text', text: '' }] }, 400, 'content[0].text'],
  [
    'unknown role',
    { model: VIDEO_MODEL, content: [text, image('https://img.example.test/a.png', 'middle_frame')] },
    400,
    'content[1].role',
  ],
  ['unknown field in a part', { model: VIDEO_MODEL, content: [{ ...text, weight: 2 }] }, 400, 'content[0]'],
  ['a duration the model does not offer', { model: VIDEO_MODEL, content: [text], duration: 7 }, 400, 'duration'],
  ['a negative duration', { model: VIDEO_MODEL, content: [text], duration: -5 }, 400, 'duration'],
  [
    'a resolution the model does not offer',
    { model: VIDEO_MODEL, content: [text], resolution: '4k' },
    400,
    'resolution',
  ],
  [
    'generate_audio not a boolean',
    { model: VIDEO_MODEL, content: [text], generate_audio: 'yes' },
    400,
    'generate_audio',
  ],
  [
    'an http (not https) reference',
    { model: VIDEO_MODEL, content: [text, image('http://img.example.test/a.png')] },
    400,
    'content[1].image_url.url',
  ],
  [
    'a file: reference',
    { model: VIDEO_MODEL, content: [text, image('file:///etc/passwd', 'last_frame')] },
    400,
    'content[1].image_url.url',
  ],
  [
    'not a URL at all',
    { model: VIDEO_MODEL, content: [text, image('just words', 'reference_image')] },
    400,
    'content[1].image_url.url',
  ],
  [
    'more reference images than the model takes (reference_limits.max_count, 4 by default)',
    { model: VIDEO_MODEL, content: [text, ...Array.from({ length: 5 }, () => image(png, 'reference_image'))] },
    400,
    'content[5].image_url.url',
  ],
  [
    'a data URI that is not an image',
    { model: VIDEO_MODEL, content: [text, image(dataUri('image/png', Buffer.from('<html>')))] },
    400,
    'content[1].image_url.url',
    'invalid_image',
  ],
  [
    'a data URI labelled with another type than its bytes',
    { model: VIDEO_MODEL, content: [text, image(dataUri('image/jpeg', pngOfSize(120)))] },
    400,
    'content[1].image_url.url',
    'unsupported_media_type',
  ],
  [
    'a data URI that is not base64',
    { model: VIDEO_MODEL, content: [text, image('data:image/png,abc')] },
    400,
    'content[1].image_url.url',
  ],
  [
    'an asset:// reference (assets are not available yet)',
    { model: VIDEO_MODEL, content: [text, image('asset://asset_123', 'first_frame')] },
    400,
    'content[1].image_url.url',
    'reference_asset_unavailable',
  ],
];

describe('POST /v1/videos refuses bad input without charging or queueing anything', () => {
  it.each(VIDEO_CASES)('%s', async (_name, body, status, param, code) => {
    await expectRefused('/v1/videos', acct, body, status, param, code);
  });

  it('an asset:// reference with a key whose asset_access is none → 403 asset_access_denied', async () => {
    await expectRefused(
      '/v1/videos',
      noAssets,
      { model: VIDEO_MODEL, content: [text, image('asset://asset_123')] },
      403,
      'content[1].image_url.url',
      'asset_access_denied',
    );
  });

  it('an unknown top-level field → 400 that names it', async () => {
    const res = await postJson(gw, '/v1/videos', acct.key, { model: VIDEO_MODEL, content: [text], fps: 60 });
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toContain('fps');
    expect(await taskRows(gw, acct.userId)).toEqual([]);
  });

  it('a body that is not JSON, or not an object → 400', async () => {
    await expectRefused('/v1/videos', acct, '{"model": "vid-sim", "content": [', 400, undefined, 'invalid_json');
    await expectRefused('/v1/videos', acct, '[1,2]', 400);
  });
});

describe('a task the account cannot afford', () => {
  it('→ 402 insufficient_balance, nothing reserved, queued or sent upstream', async () => {
    const poor = await gw.account({ balance: 49_999 }); // a 5 s 720p video costs 50,000
    const submits = upstreamCreates();
    const jobs = await jobCount(gw);
    const res = await postJson(gw, '/v1/videos', poor.key, { model: VIDEO_MODEL, content: [text] });
    expect(res.status).toBe(402);
    expect(errorOf(res).code).toBe('insufficient_balance');
    expect(await taskRows(gw, poor.userId)).toEqual([]);
    expect(await jobCount(gw)).toBe(jobs);
    expect(upstreamCreates()).toBe(submits);
    expect(await usersBalance(gw.services.db, poor.userId)).toBe(49_999);
    expect(await gw.services.redis.hlen(gw.services.redisKeys.reservations(poor.userId))).toBe(0);
    // With an Idempotency-Key the refusal is not stored: the same key works once money arrives.
    const keyed = await postJson(
      gw,
      '/v1/videos',
      poor.key,
      { model: VIDEO_MODEL, content: [text] },
      { 'idempotency-key': 'when-paid' },
    );
    expect(keyed.status).toBe(402);
    expect(
      await gw.services.db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', poor.userId).execute(),
    ).toEqual([]);
  });
});

describe('POST /v1/images/tasks refuses bad input the same way', () => {
  it.each([
    ['missing model', { prompt: 'a fox' }, 400, 'model'],
    ['a video model', { model: VIDEO_MODEL, prompt: 'a fox' }, 404, 'model'],
    ['missing prompt', { model: IMAGE_MODEL }, 400, 'prompt'],
    ['n of 0', { model: IMAGE_MODEL, prompt: 'a fox', n: 0 }, 400, 'n'],
    ['n of 11', { model: IMAGE_MODEL, prompt: 'a fox', n: 11 }, 400, 'n'],
    ['a size the model has no price for', { model: IMAGE_MODEL, prompt: 'a fox', size: '4096x4096' }, 400, 'size'],
  ] as [string, unknown, number, string][])('%s', async (_name, body, status, param) => {
    await expectRefused('/v1/images/tasks', acct, body, status, param);
  });
});

/** The call is refused as expected, and nothing anywhere changed because of it. */
async function expectRefused(
  path: string,
  who: { userId: string; key: string },
  body: unknown,
  status: number,
  param?: string,
  code?: string,
) {
  const submitsBefore = upstreamCreates();
  const jobsBefore = await jobCount(gw);
  const res = await postJson(gw, path, who.key, body);
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  const error = errorOf(res);
  if (param !== undefined) expect(error.param).toBe(param);
  if (code !== undefined) expect(error.code).toBe(code);
  expect(await taskRows(gw, who.userId)).toEqual([]);
  expect(await jobCount(gw)).toBe(jobsBefore);
  expect(upstreamCreates()).toBe(submitsBefore);
  expect(await chargeRows(gw, who.userId)).toEqual([]);
  expect(await usersBalance(gw.services.db, who.userId)).toBe(FUNDS);
  // Nothing set aside either.
  expect(await gw.services.redis.hlen(gw.services.redisKeys.reservations(who.userId))).toBe(0);
}

function upstreamCreates(): number {
  const t = gw.sim.stats().tasks;
  return t['content-tasks'].taskCreateRequests + t['openai-videos'].taskCreateRequests;
}

// Last: an accepted task queues a job, which the refusals above count as not there.
describe('POST /v1/videos with inline references', () => {
  it("inline reference images within the model's reference_limits are accepted", async () => {
    const other = await gw.account({ balance: FUNDS });
    const refs = Array.from({ length: 4 }, () => image(png, 'reference_image'));
    const res = await postJson(gw, '/v1/videos', other.key, { model: VIDEO_MODEL, content: [text, ...refs] });
    expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
    expect(await taskRows(gw, other.userId)).toHaveLength(1);
  });
});
