import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../console/helpers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { drained, usageRecords } from '../support/money.js';

let gw: TestGateway;
let owner: { userId: string; key: string; keyId: string; email: string };
let reader: string;
let token: string;
const start = new Date(Date.now() - 3_600_000).toISOString();
const end = new Date(Date.now() + 3_600_000).toISOString();

beforeAll(async () => {
  gw = await startTestGateway();
  owner = await gw.account({ balance: 10_000_000, key: { tags: ['team-a'] } });
  // A second key of the same account, with usage access, reads the whole account.
  const second = await api(gw, 'POST', '/keys', {
    token: (token = (await signIn(gw, owner.email)).token),
    body: { usage_access: true, name: 'reports' },
  });
  reader = second.json.data.key as string;
  const calls: Array<[string, Record<string, string>]> = [
    ['one', { 'x-service-tags': 'feature-x,feature-y', 'x-session-id': 'sess-1' }],
    ['two', { 'x-service-tags': 'feature-x', 'x-session-id': 'sess-1' }],
    ['three', {}],
  ];
  for (const [text, headers] of calls)
    expect(
      (
        await postChat(gw.url, owner.key, chatRequest('gpt-sim', text, { max_tokens: 3 }), {
          'x-request-id': `req-${text}`,
          ...headers,
        })
      ).status,
    ).toBe(200);
  expect(
    (await postChat(gw.url, reader, chatRequest('free-sim', 'free one'), { 'x-request-id': 'req-free' })).status,
  ).toBe(200);
  expect((await postChat(gw.url, owner.key, chatRequest('no-such-model', 'x'))).status).toBe(404);
  await drained(gw);
});
afterAll(async () => {
  await gw?.close();
});

const report = (key: string, query: string) =>
  fetch(`${gw.url}/v1/usage/report?${query}`, { headers: { authorization: `Bearer ${key}` } });
const logs = (key: string, query = '') =>
  fetch(`${gw.url}/v1/usage/logs?${query}`, { headers: { authorization: `Bearer ${key}` } });

describe('GET /v1/usage/report', () => {
  it('groups by tag: a request with several tags counts on each line, the total once, untagged on the null line', async () => {
    const records = await usageRecords(gw.services.db, owner.userId);
    const res = await report(reader, `group_by=tag&start=${start}&end=${end}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      group_by: string;
      rows: Array<{ group: string | null; requests: number; charged_micro_usd: number }>;
      total: { requests: number; charged_micro_usd: number };
    };
    const byGroup = Object.fromEntries(body.rows.map((r) => [String(r.group), r.requests]));
    // The key's own tag (team-a) is on every call of the first key, the refused one (404) included.
    expect(byGroup).toEqual({ 'team-a': 4, 'feature-x': 2, 'feature-y': 1, null: 1 });
    expect(body.total.requests).toBe(5);
    expect(body.total.charged_micro_usd).toBe(records.reduce((s, r) => s + r.charged_micro_usd, 0));
  });

  it('groups by model, key and day, with the same totals', async () => {
    for (const groupBy of ['model', 'key', 'day']) {
      const body = (await (await report(reader, `group_by=${groupBy}&start=${start}&end=${end}`)).json()) as {
        rows: Array<{ group: string; requests: number }>;
        total: { requests: number };
      };
      expect(
        body.rows.reduce((s, r) => s + r.requests, 0),
        groupBy,
      ).toBe(body.total.requests);
      // The call refused at step 4 has no model: its line is the empty one.
      if (groupBy === 'model')
        expect(Object.fromEntries(body.rows.map((r) => [r.group, r.requests]))).toEqual({
          'gpt-sim': 3,
          'free-sim': 1,
          '': 1,
        });
      if (groupBy === 'key') expect(body.rows.map((r) => r.group)).toContain(owner.keyId);
      if (groupBy === 'day') expect(body.rows[0]!.group).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('answers CSV with a header row, the rows and the total, as a file', async () => {
    const res = await report(reader, `group_by=model&start=${start}&end=${end}&format=csv`);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="usage-model-/);
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'group,requests,errors,input_tokens,output_tokens,cached_tokens,charged_micro_usd,cache_hits',
    );
    expect(lines.at(-1)).toMatch(/^total,5,1,/);
  });

  it('takes the ISO 8601 forms a person types, read as UTC: dates (a whole day each) and times without a zone', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const answer = async (query: string) => {
      const res = await report(reader, `group_by=model&${query}`);
      expect(res.status, query).toBe(200);
      return (await res.json()) as { start: string; end: string; total: { requests: number } };
    };
    const byDate = await answer(`start=${yesterday}&end=${today}`);
    expect(byDate.start).toBe(`${yesterday}T00:00:00.000Z`);
    expect(byDate.end).toBe(new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString());
    expect(byDate.total.requests).toBe(5);
    const noZone = await answer(`start=${yesterday}T06:30&end=${today}T23:59:59`);
    expect(noZone.start).toBe(`${yesterday}T06:30:00.000Z`);
    expect(noZone.end).toBe(`${today}T23:59:59.000Z`);
    const offset = await answer(`start=${yesterday}T06:30:00%2B02:00&end=${today}T23:59:59Z`);
    expect(offset.start).toBe(`${yesterday}T04:30:00.000Z`);
  });

  it('needs usage access, and refuses bad ranges and parameters naming them', async () => {
    const denied = await report(owner.key, `group_by=tag&start=${start}&end=${end}`);
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('usage_access_disabled');
    const cases: Array<[string, string]> = [
      [`group_by=week&start=${start}&end=${end}`, 'group_by'],
      [`group_by=tag&start=yesterday&end=${end}`, 'start'],
      [`group_by=tag&start=${end}&end=${start}`, 'end'],
      [`group_by=tag&start=2026-01-01T00:00:00Z&end=2026-04-05T00:00:00Z`, 'end'],
    ];
    for (const [query, param] of cases) {
      const res = await report(reader, query);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });
});

describe('GET /v1/usage/logs', () => {
  it('pages with a cursor without duplicates or gaps while records keep arriving, and filters', async () => {
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    for (;;) {
      const res = await logs(reader, `limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const page = (await res.json()) as {
        data: Array<{ request_id: string; key_prefix: string }>;
        next_cursor: string | null;
        has_more: boolean;
      };
      seen.push(...page.data.map((r) => r.request_id));
      if (pages++ === 0) {
        // A record arriving meanwhile lands before the first page: never inside the pages being read.
        await postChat(gw.url, owner.key, chatRequest('gpt-sim', 'late', { max_tokens: 1 }), {
          'x-request-id': 'req-late',
        });
        await drained(gw);
      }
      if (!page.has_more) break;
      cursor = page.next_cursor!;
    }
    expect(new Set(seen).size).toBe(seen.length);
    const all = (await usageRecords(gw.services.db, owner.userId))
      .map((r) => r.request_id)
      .filter((id) => id !== 'req-late');
    expect([...seen].sort()).toEqual([...all].sort());
    const filtered = (await (await logs(reader, 'session_id=sess-1&model=gpt-sim')).json()) as {
      data: Array<{ request_id: string }>;
    };
    expect(filtered.data.map((r) => r.request_id).sort()).toEqual(['req-one', 'req-two']);
    const tagged = (await (await logs(reader, 'tag=feature-y')).json()) as {
      data: Array<{ request_id: string; tags: string[] }>;
    };
    expect(tagged.data.map((r) => r.request_id)).toEqual(['req-one']);
    expect((await logs(reader, 'cursor=not!valid')).status).toBe(400);
    expect((await logs(reader, 'limit=101')).status).toBe(400);
  });
});

describe('POST /v1/scores', () => {
  const score = (key: string, body: unknown) =>
    fetch(`${gw.url}/v1/scores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('scores a request or a session of the account; the same name replaces the value; another account answers 404', async () => {
    const first = await score(owner.key, { request_id: 'req-one', name: 'helpful', value: 1 });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ object: 'score', request_id: 'req-one', name: 'helpful', value: 1 });
    expect(
      (await score(reader, { request_id: 'req-one', name: 'helpful', value: -3.5, comment: 'changed my mind' })).status,
    ).toBe(200);
    const rows = await gw.services.db.selectFrom('scores').selectAll().where('user_id', '=', owner.userId).execute();
    expect(rows.map((r) => [r.request_id, r.name, r.value, r.comment])).toEqual([
      ['req-one', 'helpful', -3.5, 'changed my mind'],
    ]);
    expect((await score(owner.key, { session_id: 'sess-1', name: 'session.quality', value: 1_000_000 })).status).toBe(
      200,
    );

    const stranger = await gw.account({ balance: 1_000_000 });
    const theirs = await score(stranger.key, { request_id: 'req-one', name: 'x', value: 1 });
    const missing = await score(stranger.key, { request_id: 'req-none', name: 'x', value: 1 });
    expect([theirs.status, missing.status]).toEqual([404, 404]);
  });

  it('validates the name, the value range and exactly one target', async () => {
    const cases: unknown[] = [
      { request_id: 'req-one', name: 'Bad Name', value: 1 },
      { request_id: 'req-one', name: 'x'.repeat(41), value: 1 },
      { request_id: 'req-one', name: 'ok', value: 1_000_001 },
      { request_id: 'req-one', name: 'ok', value: '1' },
      { name: 'ok', value: 1 },
      { request_id: 'req-one', session_id: 'sess-1', name: 'ok', value: 1 },
    ];
    for (const body of cases) expect((await score(owner.key, body)).status, JSON.stringify(body)).toBe(400);
  });
});

describe('the console side', () => {
  it('serves the report, the logs and the ledger to the signed-in owner without the usage-access switch', async () => {
    const rep = await api(gw, 'GET', `/usage/report?group_by=model&start=${start}&end=${end}`, { token });
    expect(rep.status).toBe(200);
    expect(rep.json.data.total.requests).toBeGreaterThanOrEqual(4);
    // The logs in the console's paginated envelope, with /v1/usage/logs's filters.
    const page = await api(gw, 'GET', '/usage/logs?page_size=1', { token });
    expect(page.json.list).toHaveLength(1);
    expect(page.json.total).toBeGreaterThanOrEqual(4);
    expect(page.json).toMatchObject({ page: 1, page_size: 1 });
    const second = await api(gw, 'GET', '/usage/logs?page=2&page_size=1', { token });
    expect(second.json.list[0].request_id).not.toBe(page.json.list[0].request_id);
    const filtered = await api(gw, 'GET', `/usage/logs?status=200&model=${page.json.list[0].model}`, { token });
    expect(filtered.json.list.every((r: { status_code: number }) => r.status_code === 200)).toBe(true);
    expect((await api(gw, 'GET', '/usage/logs?limit=1', { token })).status).toBe(400); // the console pages by page
    const ledger = await api(gw, 'GET', '/ledger?page_size=50', { token });
    expect(ledger.status).toBe(200);
    expect(ledger.json.list.map((e: { kind: string }) => e.kind)).toContain('credit');
    expect(ledger.json.list.filter((e: { kind: string }) => e.kind === 'charge').length).toBeGreaterThanOrEqual(3);
  });
});
