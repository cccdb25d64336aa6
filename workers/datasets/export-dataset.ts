import { Readable } from 'node:stream';
import { UnrecoverableError, type Job } from 'bullmq';
import { sql } from 'kysely';
import { contentKey } from '../../shared/datasets/content-log.js';
import type { DatasetFilters } from '../../shared/datasets/filters.js';
import type { TaskJobServices } from '../tasks/task-steps.js';

const PAGE = 1_000;

/**
 * Writes one export: the account's usage records matching the filters, newest first, one JSON
 * object per line with the request metadata, its scores and — when content logging was on for the
 * call — the prompt and completion, streamed to object storage. A retry runs from the start and
 * replaces the object whole, so no half file is ever left behind.
 */
export async function exportDataset(s: TaskJobServices, job: Job<{ exportId: string }>): Promise<string> {
  const found = await s.db
    .selectFrom('dataset_exports')
    .selectAll()
    .where('id', '=', job.data.exportId)
    .executeTakeFirst();
  if (!found) throw new UnrecoverableError(`no export ${job.data.exportId}`);
  const row = found;
  if (row.status === 'succeeded') return 'already done';
  await s.db.updateTable('dataset_exports').set({ status: 'running' }).where('id', '=', row.id).execute();
  const f = row.filters as DatasetFilters;
  let count = 0;
  async function* lines(): AsyncGenerator<string> {
    let before: string | undefined;
    for (;;) {
      const scoreFilter = f.score_name
        ? sql`AND EXISTS (SELECT 1 FROM scores sc WHERE sc.user_id = r.user_id AND sc.request_id = r.request_id AND sc.name = ${f.score_name}
            ${f.score_min !== undefined ? sql`AND sc.value >= ${f.score_min}` : sql``} ${f.score_max !== undefined ? sql`AND sc.value <= ${f.score_max}` : sql``})`
        : sql``;
      const { rows } = await sql<Record<string, unknown> & { seq: string; request_id: string; created_at: Date }>`
        SELECT r.seq, r.request_id, r.created_at, r.model, r.endpoint, r.status_code, r.error_code, r.stream, r.input_tokens, r.output_tokens,
          r.cached_tokens, r.charged_micro_usd, r.tags, r.latency_ms, r.session_id, r.api_key_id,
          coalesce((SELECT json_agg(json_build_object('name', sc.name, 'value', sc.value, 'comment', sc.comment) ORDER BY sc.name) FROM scores sc
            WHERE sc.user_id = r.user_id AND sc.request_id = r.request_id), '[]'::json) AS scores
        FROM usage_records r
        WHERE r.user_id = ${row.user_id} AND r.created_at >= ${f.start} AND r.created_at < ${f.end}
          ${f.model ? sql`AND r.model = ${f.model}` : sql``}
          ${f.tag ? sql`AND ${f.tag} = ANY(r.tags)` : sql``}
          ${f.key_id ? sql`AND r.api_key_id = ${f.key_id}` : sql``}
          ${scoreFilter}
          ${before ? sql`AND r.seq < ${before}::bigint` : sql``}
        ORDER BY r.seq DESC LIMIT ${PAGE}`.execute(s.db);
      for (const { seq: _, ...record } of rows) {
        const stored = await s.storage.get(contentKey(row.user_id, record.request_id));
        let content: unknown;
        if (stored) {
          const chunks: Buffer[] = [];
          for await (const c of stored.body) chunks.push(c as Buffer);
          content = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        }
        count++;
        yield `${JSON.stringify({ ...record, created_at: record.created_at.toISOString(), ...(content !== undefined && { content }) })}\n`;
      }
      if (rows.length < PAGE) return;
      before = rows.at(-1)!.seq;
    }
  }
  const key = `datasets/${row.user_id}/${row.id}.jsonl`;
  try {
    await s.storage.put(key, Readable.from(lines()), { contentType: 'application/x-ndjson' });
  } catch (err) {
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
      await s.db
        .updateTable('dataset_exports')
        .set({ status: 'failed', error: (err as Error).message, finished_at: new Date(s.clock.now()) })
        .where('id', '=', row.id)
        .execute();
    }
    throw err;
  }
  await s.db
    .updateTable('dataset_exports')
    .set({ status: 'succeeded', object_key: key, records: count, finished_at: new Date(s.clock.now()) })
    .where('id', '=', row.id)
    .execute();
  return `exported ${count} records`;
}
