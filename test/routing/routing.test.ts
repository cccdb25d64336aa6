import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat, readEvents } from '../support/http.js';
import { drained, pricedMicroUsd, usageRecords } from '../support/money.js';
import { PRICES, routingCatalog, SIM_MODELS } from './routing-catalog.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ catalog: routingCatalog, sim: { apiKey: 'sim-upstream-secret', models: SIM_MODELS } });
});
afterAll(async () => {
  await gw?.close();
});

const json = (text: string) => JSON.parse(text) as Record<string, any>;

async function preset(token: string, body: Record<string, unknown>) {
  const reply = await api(gw, 'POST', '/presets', { token, body });
  expect(reply.status, JSON.stringify(reply.json)).toBe(201);
}

describe('auto', () => {
  it('auto and auto:quality pick the highest quality the key may call; the group restricts the choice', async () => {
    const { key } = await gw.account({ balance: 10_000_000 });
    for (const model of ['auto', 'auto:quality']) {
      const res = await postChat(gw.url, key, chatRequest(model, 'hi'));
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('x-service-model')).toBe('best');
    }
    const limited = await gw.account({ balance: 10_000_000, key: { group: 'no-best' } });
    const res = await postChat(gw.url, limited.key, chatRequest('auto', 'hi'));
    expect(res.headers.get('x-service-model')).toBe('middle');
  });

  it('auto:cost picks the lowest list price; auto:latency the lowest recent time to first token', async () => {
    const { key } = await gw.account({ balance: 10_000_000 });
    expect((await postChat(gw.url, key, chatRequest('auto:cost', 'hi'))).headers.get('x-service-model')).toBe('good');
    // Samples from real streamed calls: 'middle' answers fast, 'best' and 'good' slowly.
    gw.sim.setModel('up-best', { latencyMs: 120 });
    gw.sim.setModel('up-good', { latencyMs: 120 });
    for (const model of ['middle', 'best', 'good']) {
      const res = await postChat(gw.url, key, chatRequest(model, 'hi', { stream: true }));
      expect(res.status).toBe(200);
    }
    await gw.services.routing.latency.flush(); // (what the tracker does every second)
    expect((await postChat(gw.url, key, chatRequest('auto:latency', 'hi'))).headers.get('x-service-model')).toBe(
      'middle',
    );
    gw.sim.setModel('up-best', {});
    gw.sim.setModel('up-good', {});
  });

  it('answers 400 for a malformed suffix and 404 when no model is eligible', async () => {
    const { key } = await gw.account({ balance: 10_000_000 });
    const bad = await postChat(gw.url, key, chatRequest('auto:fast', 'hi'));
    expect(bad.status).toBe(400);
    expect(json(bad.text).error).toMatchObject({ code: 'invalid_request', param: 'model' });
    const none = await gw.account({ balance: 10_000_000, key: { group: 'no-auto' } });
    const missing = await postChat(gw.url, none.key, chatRequest('auto:cost', 'hi'));
    expect(missing.status).toBe(404);
    expect(json(missing.text).error).toMatchObject({ code: 'model_not_found', param: 'model' });
  });
});

describe('presets', () => {
  it('[fails 500, answers 429, succeeds] → three usage records id, id-fb1, id-fb2, each at its own price; X-Service-Model names the third', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const session = await signIn(gw, acct.email);
    await preset(session.token, { slug: 'support-bot', models: ['fails-500', 'fails-429', 'good'] });
    const res = await postChat(gw.url, acct.key, chatRequest('@preset/support-bot', 'hello there'), {
      'x-request-id': 'req-fallback-1',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-service-model')).toBe('good');
    await drained(gw);
    const records = await usageRecords(gw.services.db, acct.userId);
    expect(records.map((r) => [r.request_id, r.model, r.status_code, r.charged_micro_usd > 0])).toEqual([
      ['req-fallback-1', 'fails-500', 500, false],
      ['req-fallback-1-fb1', 'fails-429', 429, false],
      ['req-fallback-1-fb2', 'good', 200, true],
    ]);
    const served = records[2]!;
    expect(served.charged_micro_usd).toBe(pricedMicroUsd(PRICES.cheap, served.input_tokens, served.output_tokens));
    expect(served.upstream_account).toBe('alpha/default');
  });

  it('does not fall back once bytes reached the client: the stream ends with the error event, one record', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const session = await signIn(gw, acct.email);
    await preset(session.token, { slug: 'cut-then-good', models: ['cuts', 'good'] });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${acct.key}` },
      body: JSON.stringify(chatRequest('@preset/cut-then-good', 'stream me', { stream: true })),
    });
    expect(res.headers.get('x-service-model')).toBe('cuts');
    const { text } = await readEvents(res);
    expect(text).toMatch(/"code":"upstream_(error|stream_interrupted)"/);
    expect(text).not.toContain('[DONE]');
    await drained(gw);
    expect((await usageRecords(gw.services.db, acct.userId)).map((r) => r.model)).toEqual(['cuts']);
  });

  it("another account's preset answers exactly like an unknown one; presets are listed by /v1/models", async () => {
    const owner = await gw.account({ balance: 10_000_000 });
    const ownerSession = await signIn(gw, owner.email);
    await preset(ownerSession.token, { slug: 'private-one', models: ['good'] });
    const stranger = await gw.account({ balance: 10_000_000 });
    const theirs = await postChat(gw.url, stranger.key, chatRequest('@preset/private-one', 'hi'));
    const unknown = await postChat(gw.url, stranger.key, chatRequest('@preset/no-such-one', 'hi'));
    expect([theirs.status, unknown.status]).toEqual([404, 404]);
    expect(json(theirs.text).error.code).toBe('model_not_found');
    expect(json(theirs.text).error.message.replace('private-one', 'X')).toBe(
      json(unknown.text).error.message.replace('no-such-one', 'X'),
    );
    const listed = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${owner.key}` } }).then(
      (r) => r.json() as Promise<{ data: Array<{ id: string; endpoints?: string[] }> }>,
    );
    expect(listed.data.map((m) => m.id)).toContain('@preset/private-one');
    expect(listed.data.find((m) => m.id === 'good')?.endpoints).toEqual(['chat/completions']);
    const strangerList = await fetch(`${gw.url}/v1/models`, {
      headers: { authorization: `Bearer ${stranger.key}` },
    }).then((r) => r.json() as Promise<{ data: Array<{ id: string }> }>);
    expect(strangerList.data.map((m) => m.id)).not.toContain('@preset/private-one');
  });

  it('skips a model the key group does not allow', async () => {
    const acct = await gw.account({ balance: 10_000_000, key: { group: 'no-best' } });
    const session = await signIn(gw, acct.email);
    await preset(session.token, { slug: 'best-first', models: ['best', 'middle'] });
    const res = await postChat(gw.url, acct.key, chatRequest('@preset/best-first', 'hi'));
    expect(res.headers.get('x-service-model')).toBe('middle');
  });
});

describe('providers and accounts', () => {
  it('provider.only keeps the listed providers; unknown providers answer 400 naming them', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const res = await postChat(gw.url, acct.key, chatRequest('good', 'hi', { provider: { only: ['beta'] } }));
    expect(res.status, res.text).toBe(200);
    const bad = await postChat(gw.url, acct.key, chatRequest('good', 'hi', { provider: { only: ['nowhere'] } }));
    expect(bad.status).toBe(400);
    expect(json(bad.text).error.param).toBe('provider.only[0]');
    await drained(gw);
    expect(
      (await usageRecords(gw.services.db, acct.userId)).filter((r) => r.status_code === 200).map((r) => r.provider),
    ).toEqual(['beta']);
    // The routing field never reaches the upstream.
    expect(JSON.stringify(gw.sim.stats().lastRequestBody)).not.toContain('provider');
  });

  it('spreads calls over a provider’s accounts by weight', async () => {
    const acct = await gw.account({ balance: 50_000_000 });
    for (let i = 0; i < 80; i++)
      expect((await postChat(gw.url, acct.key, chatRequest('spread', 'hi'))).status).toBe(200);
    await drained(gw);
    const accounts = (await usageRecords(gw.services.db, acct.userId)).map((r) => r.upstream_account);
    const a1 = accounts.filter((a) => a === 'multi/a1').length;
    expect(accounts.every((a) => a === 'multi/a1' || a === 'multi/a2')).toBe(true);
    // weight 3:1 → 60 expected of 80; far outside ±20 means the weights are not used.
    expect(a1).toBeGreaterThan(45);
    expect(a1).toBeLessThan(75);
  });
});

describe('tags', () => {
  it('never change routing or price', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const plain = await postChat(gw.url, acct.key, chatRequest('auto:cost', 'same words'));
    const tagged = await postChat(gw.url, acct.key, chatRequest('auto:cost', 'same words'), {
      'x-service-tags': 'team-a,feature-b',
    });
    expect(tagged.headers.get('x-service-model')).toBe(plain.headers.get('x-service-model'));
    await drained(gw);
    const [a, b] = await usageRecords(gw.services.db, acct.userId);
    expect(b!.tags).toEqual(['team-a', 'feature-b']);
    expect(b!.charged_micro_usd).toBe(a!.charged_micro_usd);
  });
});

describe('prompt templates', () => {
  it('puts the bound version in front of the system prompt, fills variables, keeps a session on one version', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const session = await signIn(gw, acct.email);
    const created = await api(gw, 'POST', '/prompt-templates', {
      token: session.token,
      body: {
        name: 'house-style',
        versions: [
          { label: 'a', text: 'A: answer {{team}} for {{model}}.', weight: 1 },
          { label: 'b', text: 'B: answer {{team}} for {{model}}.', weight: 1 },
        ],
        key_ids: [acct.keyId],
      },
    });
    expect(created.status).toBe(201);
    const vars = { 'x-service-template-vars': JSON.stringify({ team: 'ops' }), 'x-session-id': 'session-42' };
    const body = {
      model: 'good',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    };
    const sent: string[] = [];
    for (let i = 0; i < 4; i++) {
      expect((await postChat(gw.url, acct.key, body, vars)).status).toBe(200);
      const upstream = gw.sim.stats().lastRequestBody as { messages: Array<{ role: string; content: string }> };
      expect(upstream.messages).toHaveLength(2);
      expect(upstream.messages[0]!.role).toBe('system');
      sent.push(upstream.messages[0]!.content);
    }
    expect(new Set(sent).size).toBe(1);
    expect(sent[0]).toMatch(/^[AB]: answer ops for good\.\n\nBe brief\.$/);

    // Without a system message one is added; a variable without a value is a 400 naming the header.
    expect((await postChat(gw.url, acct.key, chatRequest('good', 'hi'), vars)).status).toBe(200);
    expect(
      (gw.sim.stats().lastRequestBody as { messages: Array<{ role: string }> }).messages.map((m) => m.role),
    ).toEqual(['system', 'user']);
    const missing = await postChat(gw.url, acct.key, chatRequest('good', 'hi'));
    expect(missing.status).toBe(400);
    expect(json(missing.text).error.param).toBe('X-Service-Template-Vars');

    await drained(gw);
    const versions = (await usageRecords(gw.services.db, acct.userId))
      .filter((r) => r.status_code === 200)
      .slice(0, 4)
      .map((r) => r.template_version_id);
    expect(new Set(versions).size).toBe(1);
    expect(versions[0]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('prompt template defaults', () => {
  it('a variable written {{name|default}} takes its default when the call gives none; a given value wins; the console lists the defaults', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const session = await signIn(gw, acct.email);
    const created = await api(gw, 'POST', '/prompt-templates', {
      token: session.token,
      body: {
        name: 'tones',
        versions: [
          {
            label: 'a',
            text: 'Answer {{ tone | friendly and short }} for {{team|everyone}} ({{constructor|c}}).',
            weight: 1,
          },
        ],
        key_ids: [acct.keyId],
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data.versions[0]).toMatchObject({
      variables: ['tone', 'team', 'constructor'],
      defaults: { tone: 'friendly and short', team: 'everyone', constructor: 'c' },
    });
    const system = async (headers: Record<string, string>) => {
      expect((await postChat(gw.url, acct.key, chatRequest('good', 'hi'), headers)).status).toBe(200);
      return (gw.sim.stats().lastRequestBody as { messages: Array<{ content: string }> }).messages[0]!.content;
    };
    expect(await system({})).toBe('Answer friendly and short for everyone (c).');
    expect(await system({ 'x-service-template-vars': JSON.stringify({ team: 'ops' }) })).toBe(
      'Answer friendly and short for ops (c).',
    );
  });
});

describe("a key's default preset", () => {
  it('runs requests that name no model; a request that names one keeps it; without a default the missing model is a 400', async () => {
    const acct = await gw.account({ balance: 10_000_000, key: { default_preset: 'house' } });
    const session = await signIn(gw, acct.email);
    await preset(session.token, { slug: 'house', models: ['middle', 'good'] });
    const unnamed = await postChat(gw.url, acct.key, { messages: [{ role: 'user', content: 'hi' }] });
    expect(unnamed.status, unnamed.text).toBe(200);
    expect(unnamed.headers.get('x-service-model')).toBe('middle');
    expect((await postChat(gw.url, acct.key, chatRequest('good', 'hi'))).headers.get('x-service-model')).toBe('good');
    const plain = await gw.account({ balance: 10_000_000 });
    const missing = await postChat(gw.url, plain.key, { messages: [{ role: 'user', content: 'hi' }] });
    expect(missing.status).toBe(400);
    expect(json(missing.text).error.param).toBe('model');
  });
});
