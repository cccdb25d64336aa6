import type { Db } from '../db/index.js';
import { usageLogs } from '../db/usage-logs.js';
import { usageReport, type Counters, type ReportRow } from '../db/usage-reports.js';
import { cursorOf, readLogsQuery, readReportQuery } from './report-query.js';

const COLUMNS = [
  'group',
  'requests',
  'errors',
  'input_tokens',
  'output_tokens',
  'cached_tokens',
  'charged_micro_usd',
  'cache_hits',
] as const;

function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One header row, one row per group, then the total (`group` = `total`). */
export function reportCsv(rows: ReportRow[], total: Counters): string {
  const lines = [COLUMNS.join(',')];
  for (const row of rows) lines.push(COLUMNS.map((c) => csvField(row[c])).join(','));
  lines.push(COLUMNS.map((c) => csvField(c === 'group' ? 'total' : total[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export type ReportAnswer = { csv: string; filename: string } | { json: Record<string, unknown> };

/** The usage report of one account, from a request's query (shared by the API-key and console routes). */
export async function reportAnswer(db: Db, userId: string, query: unknown): Promise<ReportAnswer> {
  const q = readReportQuery(query);
  const { rows, total } = await usageReport(db, userId, q.groupBy, q.start, q.end);
  if (q.csv)
    return {
      csv: reportCsv(rows, total),
      filename: `usage-${q.groupBy}-${q.start.toISOString().slice(0, 10)}-${q.end.toISOString().slice(0, 10)}.csv`,
    };
  return { json: { group_by: q.groupBy, start: q.start.toISOString(), end: q.end.toISOString(), rows, total } };
}

/** A request record as the logs show it. */
export const logView = ({ seq: _, created_at, ...r }: Awaited<ReturnType<typeof usageLogs>>[number]) => ({
  ...r,
  created_at: created_at.toISOString(),
});

/** A page of one account's request records, newest first, with the cursor of the next page. */
export async function logsAnswer(db: Db, userId: string, query: unknown) {
  const { filters, limit } = readLogsQuery(query);
  const found = await usageLogs(db, userId, filters, limit);
  const page = found.slice(0, limit);
  const last = page.at(-1);
  return {
    object: 'list',
    data: page.map(logView),
    has_more: found.length > limit,
    next_cursor: found.length > limit && last?.seq !== undefined ? cursorOf(String(last.seq)) : null,
  };
}
