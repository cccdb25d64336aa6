import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSpans, usageReport, usageReportFromRecords, type GroupBy } from '../../shared/db/usage-reports.js';
import { dropExpiredUsagePartitions, ensureUsagePartitions } from '../../shared/db/usage-partitions.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { chatRequest, postChat } from '../support/http.js';
import { controlClock } from '../support/limits.js';
import { drained } from '../support/money.js';

// The report reads whole UTC days from the rollups the drain keeps and only the edges from the
// records: it must answer exactly what the records alone say, for every grouping.
const clock = controlClock();
let gw: TestGateway;
const DAY = 86_400_000;
const D = Date.UTC(2026, 9, 20); // 2026-10-20 00:00 UTC

beforeAll(async () => {
  gw = await startTestGateway({ clock });
});
afterAll(async () => {
  await gw?.close();
});

describe('usage report from rollups', () => {
  it('equals the report from the raw records for every group_by, across partial and whole days', async () => {
    const a = await gw.account({ balance: 50_000_000, key: { tags: ['k-tag'] } });
    const b = await gw.account({ balance: 50_000_000 });
    const calls: Array<[number, string, string, Record<string, string>]> = [
      [D - 2 * DAY + 10 * 3_600_000, a.key, 'gpt-sim', { 'x-service-tags': 'x,y' }],
      [D - 2 * DAY + 23 * 3_600_000, a.key, 'free-sim', {}],
      [D - DAY + 1 * 3_600_000, a.key, 'gpt-sim', { 'x-service-tags': 'y' }],
      [D - DAY + 12 * 3_600_000, b.key, 'gpt-sim', {}],
      [D - DAY + 13 * 3_600_000, a.key, 'no-such-model', {}],
      [D + 2 * 3_600_000, a.key, 'gpt-sim', { 'x-service-tags': 'x' }],
      [D + 9 * 3_600_000, a.key, 'gpt-sim', {}],
    ];
    for (const [at, key, model, headers] of calls) {
      clock.set(at);
      await postChat(gw.url, key, chatRequest(model, `call at ${at}`, { max_tokens: 3 }), headers);
    }
    await drained(gw);
    const ranges: Array<[number, number]> = [
      [D - 2 * DAY + 8 * 3_600_000, D + 10 * 3_600_000], // partial, whole, partial
      [D - 2 * DAY, D + DAY], // whole days only
      [D - DAY + 11 * 3_600_000, D - DAY + 14 * 3_600_000], // inside one day
    ];
    for (const user of [a.userId, b.userId]) {
      for (const [s, e] of ranges) {
        for (const groupBy of ['tag', 'model', 'key', 'day'] as GroupBy[]) {
          const fast = await usageReport(gw.services.db, user, groupBy, new Date(s), new Date(e));
          const slow = await usageReportFromRecords(gw.services.db, user, groupBy, new Date(s), new Date(e));
          const sort = (rows: Array<{ group: string | null }>) =>
            [...rows].sort((x, y) => String(x.group).localeCompare(String(y.group)));
          expect(sort(fast.rows), `${groupBy} ${new Date(s).toISOString()}`).toEqual(
            sort(slow.rows.filter((r) => r.requests > 0)),
          );
          expect(fast.total).toEqual(slow.total);
        }
      }
    }
    const whole = await usageReport(gw.services.db, a.userId, 'tag', new Date(D - 2 * DAY), new Date(D + DAY));
    expect(whole.total.requests).toBe(6);
    expect(Object.fromEntries(whole.rows.map((r) => [String(r.group), r.requests]))).toEqual({
      'k-tag': 6,
      x: 2,
      y: 2,
    });
  });

  it('equals the records when the edges fall mid-hour and mid-day: whole days, whole hours, partial hours', async () => {
    const a = await gw.account({ balance: 50_000_000 });
    const H = 3_600_000;
    const M = 60_000;
    // Calls on both sides of every cut the ranges below make (minutes into an hour, hours into a day),
    // far enough from each cut for the clock's running on during a call.
    const at = [
      D - 9 * DAY + 10 * H + 5 * M,
      D - 5 * DAY,
      D - DAY + 10 * H + 5 * M,
      D - DAY + 10 * H + 40 * M,
      D - DAY + 11 * H + 20 * M,
      D - DAY + 17 * H,
      D - 30_000,
      D,
      D + 30 * M,
      D + 12 * H,
      D + DAY + 9 * H + 10 * M,
      D + DAY + 9 * H + 50 * M,
    ];
    for (const [i, t] of at.entries()) {
      clock.set(t);
      const tags = { 'x-service-tags': i % 2 ? 'odd' : 'even,all' };
      await postChat(gw.url, a.key, chatRequest(i % 3 ? 'gpt-sim' : 'free-sim', `edge ${i}`, { max_tokens: 3 }), tags);
    }
    await drained(gw);
    const ranges: Array<[number, number]> = [
      [D - DAY + 10 * H + 20 * M, D + DAY + 9 * H + 30 * M], // partial hour, whole hours, a whole day, whole hours, partial hour
      [D - DAY + 10 * H + 20 * M, D - DAY + 11 * H + 30 * M], // inside one day: two partial hours around a whole one
      [D - DAY + 10 * H + 10 * M, D - DAY + 10 * H + 50 * M], // inside one hour
      [D - M, D + M], // across midnight, no whole hour
      [D - DAY + 10 * H + 20 * M, D + 45 * M], // across midnight, whole hours on both sides
      [D - 9 * DAY + 10 * H, D + DAY + 9 * H + 30 * M], // by key: a whole week (from Monday 2026-10-12) too
    ];
    // Each range reads the sources the split promises.
    // Past 12 whole hours of a day, the day less its other hours.
    expect(reportSpans(...ranges[0]!)).toEqual({
      weekly: [],
      daily: [
        [D, D + DAY],
        [D - DAY, D],
      ],
      hourly: [[D + DAY, D + DAY + 9 * H]],
      hourlyLess: [[D - DAY, D - DAY + 11 * H]],
      records: [
        [D - DAY + 10 * H + 20 * M, D - DAY + 11 * H],
        [D + DAY + 9 * H, D + DAY + 9 * H + 30 * M],
      ],
    });
    expect(reportSpans(...ranges[2]!)).toEqual({
      weekly: [],
      daily: [],
      hourly: [],
      hourlyLess: [],
      records: [ranges[2]],
    });
    expect(reportSpans(...ranges[5]!, true)).toEqual({
      weekly: [[D - 8 * DAY, D - DAY]],
      daily: [
        [D - 9 * DAY, D - 8 * DAY],
        [D - DAY, D + DAY],
      ],
      hourly: [[D + DAY, D + DAY + 9 * H]],
      hourlyLess: [[D - 9 * DAY, D - 9 * DAY + 10 * H]],
      records: [[D + DAY + 9 * H, D + DAY + 9 * H + 30 * M]],
    });
    for (const [s, e] of ranges) {
      for (const groupBy of ['tag', 'model', 'key', 'day'] as GroupBy[]) {
        const fast = await usageReport(gw.services.db, a.userId, groupBy, new Date(s), new Date(e));
        const slow = await usageReportFromRecords(gw.services.db, a.userId, groupBy, new Date(s), new Date(e));
        expect(fast, `${groupBy} ${new Date(s).toISOString()}–${new Date(e).toISOString()}`).toEqual(slow);
      }
    }
    const first = await usageReport(gw.services.db, a.userId, 'day', new Date(ranges[0]![0]), new Date(ranges[0]![1]));
    expect(first.rows.map((r) => [r.group, r.requests])).toEqual([
      ['2026-10-19', 4], // 10:40, 11:20, 17:00, 23:59:30
      ['2026-10-20', 3],
      ['2026-10-21', 1], // 09:10; 09:50 is past the end
    ]);
  });

  it('keeps monthly partitions ahead and drops raw months past the retention, rollups staying', async () => {
    const created = await ensureUsagePartitions(gw.services.db, Date.UTC(2031, 5, 10), 2);
    expect(created).toEqual(['usage_records_2031_06', 'usage_records_2031_07', 'usage_records_2031_08']);
    expect(await ensureUsagePartitions(gw.services.db, Date.UTC(2031, 5, 10), 2)).toEqual([]);
    const dropped = await dropExpiredUsagePartitions(gw.services.db, Date.UTC(2031, 8, 15), 30);
    expect(dropped).toEqual(expect.arrayContaining(['usage_records_2031_06', 'usage_records_2031_07']));
    expect(dropped).not.toContain('usage_records_2031_08');
  });
});
