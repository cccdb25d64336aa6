import type { Middleware } from 'koa';
import { closeAccount } from '../../../shared/console/close-account.js';
import { confirmSensitive } from '../../../shared/console/sensitive.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { clearSessionCookie } from '../cookie.js';
import { signedIn } from '../session.js';
import { confirmation } from './fields.js';

/** POST /api/v1/auth/account/close `{password, code}` (a `close_account` code) → 204; every key and session ends. */
export function closeAccountRoute(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, confirmation);
    const { user } = signedIn(ctx);
    await confirmSensitive(services, user, 'close_account', body);
    await closeAccount(services, user.id);
    clearSessionCookie(services, ctx);
    ctx.status = 204;
  };
}
