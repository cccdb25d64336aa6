import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../shared/keys/manage-keys.js';
import { startTaskWorkers, type TaskWorkers } from '../../workers/task-workers.js';
import { uploadAsset } from '../support/assets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pngOfSize } from '../support/images.js';
import type { Json } from '../support/limits.js';
import { drained, usageRecords, usersBalance } from '../support/money.js';
import { MODEL_OF, surfacesCatalog } from '../surfaces/catalog.js';

// Issue 30, part 5: `asset://` references in the image parts of chat completions, Responses,
// Messages and generateContent calls are resolved with the same scope rules as every other surface
// and go upstream inline: no upstream ever sees `asset://`.
let gw: TestGateway;
let workers: TaskWorkers;
beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  // Private chat calls run as jobs: one that slipped past the checks would run, and be seen stored.
  workers = startTaskWorkers(gw.services, {
    queues: 'private-chat',
    concurrency: '',
    maintenanceEveryMs: 60_000,
    staleAfterMs: 600_000,
    graceMs: 1_000,
  });
});
afterAll(async () => {
  await workers?.close();
  await gw?.close();
});

const FUNDS = 1_000_000;
const PNG = pngOfSize(300);

async function post(path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

type Upstream = keyof typeof MODEL_OF;
const CALLS: Record<string, (key: string, ref: string, upstream: Upstream) => ReturnType<typeof post>> = {
  'chat completions': (key, ref, upstream) =>
    post(
      '/v1/chat/completions',
      { authorization: `Bearer ${key}` },
      {
        model: MODEL_OF[upstream],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is it' },
              { type: 'image_url', image_url: { url: ref } },
            ],
          },
        ],
      },
    ),
  responses: (key, ref, upstream) =>
    post(
      '/v1/responses',
      { authorization: `Bearer ${key}` },
      {
        model: MODEL_OF[upstream],
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'what is it' },
              { type: 'input_image', image_url: ref },
            ],
          },
        ],
      },
    ),
  messages: (key, ref, upstream) =>
    post(
      '/v1/messages',
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      {
        model: MODEL_OF[upstream],
        max_tokens: 50,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'url', url: ref } },
              { type: 'text', text: 'what is it' },
            ],
          },
        ],
      },
    ),
  generateContent: (key, ref, upstream) =>
    post(
      `/v1beta/models/${MODEL_OF[upstream]}:generateContent`,
      { 'x-goog-api-key': key },
      {
        contents: [
          { role: 'user', parts: [{ text: 'what is it' }, { fileData: { mimeType: 'image/png', fileUri: ref } }] },
        ],
      },
    ),
};

describe('asset:// in the image parts of every text surface', () => {
  for (const [surface, call] of Object.entries(CALLS)) {
    for (const upstream of ['openai', 'anthropic', 'gemini'] as const) {
      it(`${surface} → ${upstream} upstream: the asset goes inline, never as asset://`, async () => {
        const acct = await gw.account({ balance: FUNDS });
        const asset = await uploadAsset(gw, acct.key, PNG);
        const res = await call(acct.key, asset.reference, upstream);
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        const sent = gw.sim.stats().lastRequestText!;
        expect(sent).not.toContain('asset://');
        expect(sent).toContain(PNG.toString('base64'));
      });
    }
  }
});

// The scope rules of every surface, in each surface's own error format: a key with asset_access
// `none` → 403 `asset_access_denied`; an asset out of the key's scope (another key's under `own`,
// another account's) or missing → 400 `reference_asset_unavailable`, exactly like a missing one.
// Nothing is sent upstream, charged or (private protocol) stored.
describe('asset:// out of scope, on every text surface', () => {
  type Expected = { status: number; code: string; param: string };
  interface Surface {
    kind: 'standard' | 'private';
    call(key: string, ref: string): ReturnType<typeof post>;
    /** The path of the image reference, as the surface names it. */
    param: string;
    expectError(json: Json, e: Expected): void;
  }
  const openAiError = (json: Json, e: Expected) =>
    expect(json.error).toMatchObject({
      code: e.code,
      param: e.param,
      type: expect.any(String),
      message: expect.any(String),
    });
  const SURFACES: Record<string, Surface> = {
    'chat completions': {
      kind: 'standard',
      call: (key, ref) => CALLS['chat completions']!(key, ref, 'openai'),
      param: 'messages[0].content[1].image_url.url',
      expectError: openAiError,
    },
    responses: {
      kind: 'standard',
      call: (key, ref) => CALLS.responses!(key, ref, 'openai'),
      param: 'input[0].content[1].image_url',
      expectError: openAiError,
    },
    messages: {
      kind: 'standard',
      call: (key, ref) => CALLS.messages!(key, ref, 'openai'),
      param: 'messages[0].content[0].source.url',
      expectError: (json, e) =>
        expect(json).toMatchObject({ type: 'error', error: { code: e.code, type: expect.any(String) } }),
    },
    generateContent: {
      kind: 'standard',
      call: (key, ref) => CALLS.generateContent!(key, ref, 'openai'),
      param: 'contents[0].parts[1].fileData.fileUri',
      expectError: (json, e) => {
        expect(json.error).toMatchObject({
          code: e.status,
          status: e.status === 403 ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT',
        });
        expect(json.error.details[0]).toMatchObject({ reason: e.code });
      },
    },
    'private chat': {
      kind: 'private',
      call: (key, ref) =>
        post(
          '/server/v1/call',
          {},
          {
            apiKey: key,
            clientRequestId: `ref-${++privateCalls}`,
            model: MODEL_OF.openai,
            input: {
              messages: [
                {
                  role: 'user',
                  content: [
                    { type: 'text', text: 'what is it' },
                    { type: 'image_url', image_url: { url: ref } },
                  ],
                },
              ],
            },
          },
        ),
      param: 'input.messages[0].content[1].image_url.url',
      expectError: (json, e) =>
        expect(json).toMatchObject({ code: e.status, error_code: e.code, request_id: expect.any(String) }),
    },
  };
  let privateCalls = 0;

  // Each case: the key that calls (made for the surface's kind), and the reference it sends.
  const CASES: Record<
    string,
    (kind: Surface['kind']) => Promise<{ userId: string; key: string; ref: string; code: string; status: number }>
  > = {
    "asset_access none, its own account's asset": async (kind) => {
      const owner = await gw.account({ balance: FUNDS });
      const asset = await uploadAsset(gw, owner.key, PNG);
      const none = await keyOf(owner.userId, kind, 'none');
      return { userId: owner.userId, key: none, ref: asset.reference, status: 403, code: 'asset_access_denied' };
    },
    "another key's asset, under own": async (kind) => {
      const owner = await gw.account({ balance: FUNDS });
      const asset = await uploadAsset(gw, owner.key, PNG);
      const own = await keyOf(owner.userId, kind, 'own');
      return { userId: owner.userId, key: own, ref: asset.reference, status: 400, code: 'reference_asset_unavailable' };
    },
    "another account's asset": async (kind) => {
      const owner = await gw.account({ balance: FUNDS });
      const asset = await uploadAsset(gw, owner.key, PNG);
      const stranger = await gw.account({ balance: FUNDS });
      const all = await keyOf(stranger.userId, kind, 'all');
      return {
        userId: stranger.userId,
        key: all,
        ref: asset.reference,
        status: 400,
        code: 'reference_asset_unavailable',
      };
    },
    'a missing asset': async (kind) => {
      const acct = await gw.account({ balance: FUNDS });
      const all = await keyOf(acct.userId, kind, 'all');
      return {
        userId: acct.userId,
        key: all,
        ref: 'asset://asset_AAAAAAAAAAAAAAAAAAAA',
        status: 400,
        code: 'reference_asset_unavailable',
      };
    },
  };

  for (const [surface, s] of Object.entries(SURFACES)) {
    for (const [name, setup] of Object.entries(CASES)) {
      it(`${surface}: ${name}`, async () => {
        const c = await setup(s.kind);
        const sent = gw.sim.stats().requests;
        const res = await s.call(c.key, c.ref);
        expect(res.status, JSON.stringify(res.json)).toBe(c.status);
        s.expectError(res.json, { status: c.status, code: c.code, param: s.param });
        expect(gw.sim.stats().requests).toBe(sent);
        await drained(gw);
        expect(await usersBalance(gw.services.db, c.userId)).toBe(FUNDS);
        const usage = await usageRecords(gw.services.db, c.userId);
        expect(usage.reduce((sum, r) => sum + r.charged_micro_usd, 0)).toBe(0);
        const stored = await gw.services.db
          .selectFrom('private_calls')
          .select('id')
          .where('user_id', '=', c.userId)
          .execute();
        expect(stored).toHaveLength(0);
      });
    }
  }
});

async function keyOf(userId: string, kind: 'standard' | 'private', access: 'none' | 'own' | 'all'): Promise<string> {
  const admin = { db: gw.services.db, redis: gw.services.redis, channel: gw.services.redisKeys.keyInvalidation };
  const options = { asset_access: access, ...(kind === 'private' ? { kind: 'private' as const } : {}) };
  return (await createKey(admin, userId, options)).key;
}
