import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type Koa from 'koa';
import { notFound, unauthorized } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { sameSecret } from '../../shared/same-secret.js';

const BASE_PATH = '/admin/queues';
const COOKIE = 'gw_operator';


/**
 * The BullMQ dashboard at /admin/queues, for operators only: `Authorization: Bearer
 * <OPERATOR_TOKEN>`, or open `/admin/queues?token=<OPERATOR_TOKEN>` once in a browser (it sets an
 * HttpOnly cookie). Without OPERATOR_TOKEN the dashboard does not exist (404).
 */
export function queueDashboard(services: GatewayServices): Koa.Middleware[] {
  const token = services.config.operatorToken;
  if (!token) return [];
  const adapter = new KoaAdapter();
  adapter.setBasePath(BASE_PATH);
  createBullBoard({ queues: [...services.jobs.queues.values()].map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
  const guard: Koa.Middleware = async (ctx, next) => {
    if (!ctx.path.startsWith(BASE_PATH)) return next();
    const bearer = ctx.get('authorization').replace(/^Bearer\s+/i, '');
    const query = typeof ctx.query.token === 'string' ? ctx.query.token : undefined;
    if (sameSecret(query, token)) {
      ctx.cookies.set(COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: BASE_PATH, overwrite: true });
    } else if (!sameSecret(bearer, token) && !sameSecret(ctx.cookies.get(COOKIE), token)) {
      throw ctx.get('authorization') || ctx.cookies.get(COOKIE) ? unauthorized('invalid operator token') : notFound();
    }
    return next();
  };
  return [guard, adapter.registerPlugin()];
}
