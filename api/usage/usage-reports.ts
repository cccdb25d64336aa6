import type { Context, Middleware } from 'koa';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { logsAnswer, reportAnswer, type ReportAnswer } from '../../shared/usage/usage-answers.js';
import { authenticateAndCount } from '../http/credential.js';

/** The report as JSON (wrapped by the caller's envelope) or as a CSV file. */
export function sendReport(ctx: Context, answer: ReportAnswer, wrap: (json: Record<string, unknown>) => unknown): void {
  if ('csv' in answer) {
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="${answer.filename}"`);
    ctx.body = answer.csv;
  } else {
    ctx.body = wrap(answer.json);
  }
}

/** The account-wide usage routes need a key whose owner turned usage access on. */
async function usageKey(ctx: Context, services: GatewayServices): Promise<ApiKeyContext> {
  const key = await authenticateAndCount(ctx, services);
  if (!key.usageAccess) {
    throw new GatewayError(
      'usage_access_disabled',
      403,
      "this key may not read the account's usage: turn its usage access on in the console",
    );
  }
  ctx.set('Cache-Control', 'no-store');
  return key;
}

/** GET /v1/usage/report: the whole account's spend by tag, model, key or day (JSON, or `format=csv`). */
export function usageReportRoute(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await usageKey(ctx, services);
    sendReport(ctx, await reportAnswer(services.db, key.userId, ctx.query), (json) => json);
  };
}

/** GET /v1/usage/logs: a page of the account's request records. */
export function usageLogsRoute(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await usageKey(ctx, services);
    ctx.body = await logsAnswer(services.db, key.userId, ctx.query);
  };
}
