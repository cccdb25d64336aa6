import type { Middleware } from 'koa';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { countUsageLogs, usageLogs } from '../../../shared/db/usage-logs.js';
import { logFiltersOf, logFiltersSchema } from '../../../shared/usage/report-query.js';
import { logView, reportAnswer } from '../../../shared/usage/usage-answers.js';
import { parseOrThrow } from '../../../shared/validation.js';
import { sendReport } from '../../usage/usage-reports.js';
import { pageQuerySchema, readPageQuery, sendPage } from '../envelope.js';
import { signedIn } from '../session.js';

/** GET /api/v1/usage/report: the signed-in owner's report (no usage-access switch: the owner is signed in). */
export function consoleUsageReport(services: GatewayServices): Middleware {
  return async (ctx) => {
    const answer = await reportAnswer(services.db, signedIn(ctx).user.id, ctx.query);
    sendReport(ctx, answer, (json) => ({ data: json, request_id: ctx.state.requestId as string }));
  };
}

/** The console's logs query: the filters of /v1/usage/logs, paged like every console list. */
export const consoleLogsQuerySchema = logFiltersSchema.extend(pageQuerySchema.shape);

/**
 * GET /api/v1/usage/logs: the records /v1/usage/logs shows, with its filters, in the console's
 * paginated envelope (`page`, `page_size`, `total`) like every console list, each with the
 * `scores` given to that request (`POST /v1/scores`), as a dataset export carries them.
 */
export function consoleUsageLogs(services: GatewayServices): Middleware {
  return async (ctx) => {
    const { page, page_size: pageSize, ...filters } = parseOrThrow(consoleLogsQuerySchema, ctx.query);
    const where = logFiltersOf(filters);
    const userId = signedIn(ctx).user.id;
    const [rows, total] = await Promise.all([
      usageLogs(services.db, userId, where, pageSize, (page - 1) * pageSize),
      countUsageLogs(services.db, userId, where),
    ]);
    const records = rows.slice(0, pageSize).map(logView);
    const scores = await scoresOf(
      services,
      userId,
      records.map((r) => r.request_id),
    );
    sendPage(
      ctx,
      { page, pageSize },
      records.map((r) => ({ ...r, scores: scores.get(r.request_id) ?? [] })),
      total,
    );
  };
}

/** The scores of these requests of the account, by request id, in name order. */
async function scoresOf(services: GatewayServices, userId: string, requestIds: string[]) {
  const byRequest = new Map<string, { name: string; value: number; comment: string | null }[]>();
  if (requestIds.length === 0) return byRequest;
  const rows = await services.db
    .selectFrom('scores')
    .select(['request_id', 'name', 'value', 'comment'])
    .where('user_id', '=', userId)
    .where('request_id', 'in', requestIds)
    .orderBy('name')
    .execute();
  for (const { request_id, ...score } of rows) {
    const list = byRequest.get(request_id!) ?? [];
    list.push(score);
    byRequest.set(request_id!, list);
  }
  return byRequest;
}

/** GET /api/v1/ledger: the account's ledger, newest first, in the paginated envelope. */
export function consoleLedger(services: GatewayServices): Middleware {
  return async (ctx) => {
    const query = readPageQuery(ctx);
    const userId = signedIn(ctx).user.id;
    const [rows, count] = await Promise.all([
      services.db
        .selectFrom('ledger_entries')
        .select(['id', 'kind', 'amount_micro_usd', 'balance_after_micro_usd', 'request_id', 'note', 'created_at'])
        .where('user_id', '=', userId)
        .orderBy('id', 'desc')
        .limit(query.pageSize)
        .offset((query.page - 1) * query.pageSize)
        .execute(),
      services.db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow(),
    ]);
    sendPage(
      ctx,
      query,
      rows.map((r) => ({ ...r, id: String(r.id), created_at: r.created_at.toISOString() })),
      Number(count.n),
    );
  };
}
