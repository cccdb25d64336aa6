import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type Koa from 'koa';
import { SignInGuard } from '../../shared/console/sign-in-guard.js';
import { notFound, unauthorized } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { sameSecret } from '../../shared/same-secret.js';
import { hasOperatorCookie, hasOperatorSession, operatorSignIn, signInForm } from './operator-session.js';

const BASE_PATH = '/admin/queues';

/**
 * The BullMQ dashboard at /admin/queues, for operators only: `Authorization: Bearer
 * <OPERATOR_TOKEN>`, or in a browser the sign-in form at /admin/queues, which sets a short-lived
 * signed session cookie. The token is never taken from a URL (where logs, history and Referer keep
 * it) nor stored in a cookie. Without OPERATOR_TOKEN the dashboard does not exist (404).
 */
export function queueDashboard(services: GatewayServices): Koa.Middleware[] {
  const token = services.config.operatorToken;
  if (!token) return [];
  const adapter = new KoaAdapter();
  adapter.setBasePath(BASE_PATH);
  createBullBoard({
    queues: [...services.jobs.queues.values()].map((q) => new BullMQAdapter(q)),
    serverAdapter: adapter,
  });
  const signInGuard = new SignInGuard(services);
  const guard: Koa.Middleware = async (ctx, next) => {
    if (!ctx.path.startsWith(BASE_PATH)) return next();
    const entry = ctx.path === BASE_PATH || ctx.path === `${BASE_PATH}/`;
    if (entry && ctx.method === 'POST')
      return operatorSignIn(services, ctx, token, BASE_PATH, () => signInGuard.throttleIp(ctx.ip));
    const bearer = ctx.get('authorization').replace(/^Bearer\s+/i, '');
    if (sameSecret(bearer, token) || hasOperatorSession(ctx, token)) return next();
    if (entry && ctx.method === 'GET' && !ctx.get('authorization')) {
      return signInForm(
        ctx,
        BASE_PATH,
        ctx.query.token === undefined
          ? undefined
          : 'The token is not accepted in the address (it ends up in logs and history): enter it here, and consider changing it.',
      );
    }
    throw ctx.get('authorization') || hasOperatorCookie(ctx) ? unauthorized('invalid operator token') : notFound();
  };
  return [guard, adapter.registerPlugin()];
}
