import { z } from 'zod';
import { badRequest } from '../errors.js';
import type { LogFilters } from '../db/usage-logs.js';
import type { GroupBy } from '../db/usage-reports.js';
import { parseOrThrow } from '../validation.js';
import { UUID_PATTERN as UUID } from '../ids.js';

const MAX_RANGE_MS = 93 * 86_400_000;
const INSTANT_FORMS =
  'must be an ISO 8601 date (2026-11-01) or time (2026-11-01T09:30, 2026-11-01T09:30:00Z, 2026-11-01T09:30:00+01:00)';
// The forms a person types: a date, or a time with or without a zone offset (none = UTC).
const instant = z.union([z.iso.datetime({ offset: true, local: true }), z.iso.date()], { error: INSTANT_FORMS });

/**
 * A query instant as a Date, read as UTC when it names no zone. A date alone is a whole day: as a
 * range's start its midnight, as its end the next midnight, so `start=2026-11-01&end=2026-11-30`
 * is all of November.
 */
export function readInstant(text: string, edge: 'start' | 'end'): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text))
    return new Date(Date.parse(`${text}T00:00:00Z`) + (edge === 'end' ? 86_400_000 : 0));
  return new Date(/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(text) ? text : `${text}Z`);
}

export const reportQuerySchema = z.strictObject({
  group_by: z.enum(['tag', 'model', 'key', 'day']),
  start: instant,
  end: instant,
  format: z.enum(['json', 'csv']).optional(),
});

export interface ReportQuery {
  groupBy: GroupBy;
  start: Date;
  end: Date;
  csv: boolean;
}

/** `group_by`, `start` < `end` at most 93 days apart, optional `format=csv`: 400 naming the parameter otherwise. */
export function readReportQuery(query: unknown): ReportQuery {
  const q = parseOrThrow(reportQuerySchema, query);
  const start = readInstant(q.start, 'start');
  const end = readInstant(q.end, 'end');
  if (end <= start) throw badRequest("invalid value for 'end': must be after 'start'", 'end');
  if (end.getTime() - start.getTime() > MAX_RANGE_MS)
    throw badRequest("invalid value for 'end': the range is at most 93 days", 'end');
  return { groupBy: q.group_by, start, end, csv: q.format === 'csv' };
}

export const logsQuerySchema = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 100')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(100, 'must be at most 100'))
    .optional(),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'must be the next_cursor of a previous page')
    .optional(),
  start: instant.optional(),
  end: instant.optional(),
  model: z.string().min(1).max(128).optional(),
  key_id: z.string().regex(UUID, 'must be a key id').optional(),
  status: z
    .string()
    .regex(/^\d{3}$/, 'must be an HTTP status')
    .transform(Number)
    .optional(),
  tag: z.string().min(1).max(64).optional(),
  session_id: z.string().min(1).max(128).optional(),
  /** `true`: only calls answered from the response cache; `false`: only the others. */
  cache_hit: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
});

/** The logs page query; the cursor is the previous page's last insertion number, base64url. */
export function readLogsQuery(query: unknown): { filters: LogFilters; limit: number } {
  const q = parseOrThrow(logsQuerySchema, query);
  let beforeSeq: string | undefined;
  if (q.cursor !== undefined) {
    beforeSeq = Buffer.from(q.cursor, 'base64url').toString('utf8');
    if (!/^\d{1,19}$/.test(beforeSeq))
      throw badRequest("invalid value for 'cursor': must be the next_cursor of a previous page", 'cursor');
  }
  return { limit: q.limit ?? 20, filters: { ...logFiltersOf(q), ...(beforeSeq && { beforeSeq }) } };
}

/** The logs' filters without their paging (the console pages by `page` and `page_size`). */
export const logFiltersSchema = logsQuerySchema.omit({ limit: true, cursor: true });

export function logFiltersOf(q: z.infer<typeof logFiltersSchema>): LogFilters {
  return {
    ...(q.start && { start: readInstant(q.start, 'start') }),
    ...(q.end && { end: readInstant(q.end, 'end') }),
    ...(q.model && { model: q.model }),
    ...(q.key_id && { keyId: q.key_id }),
    ...(q.status !== undefined && { status: q.status }),
    ...(q.tag && { tag: q.tag }),
    ...(q.session_id && { sessionId: q.session_id }),
    ...(q.cache_hit !== undefined && { cacheHit: q.cache_hit }),
  };
}

export const cursorOf = (seq: string) => Buffer.from(seq, 'utf8').toString('base64url');
