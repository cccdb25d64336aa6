import type { Middleware } from 'koa';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { countUsageLogs, usageLogs } from '../../../shared/db/usage-reports.js';
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
 * paginated envelope (`page`, `page_size`, `total`) like every console list.
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
    sendPage(ctx, { page, pageSize }, rows.slice(0, pageSize).map(logView), total);
  };
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
