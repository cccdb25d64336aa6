import type { Middleware } from 'koa';
import { z } from 'zod';
import { endSession } from '../../../shared/console/sessions.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { clearSessionCookie } from '../cookie.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

/** POST /api/v1/auth/logout: revokes this session (cookie and bearer token alike) and clears the cookie. */
export function logout(services: GatewayServices): Middleware {
  return async (ctx) => {
    await readConsoleBody(ctx, z.strictObject({}));
    await endSession(services.db, signedIn(ctx).session.sessionId);
    clearSessionCookie(services, ctx);
    sendData(ctx, null);
  };
}
