import type { Middleware } from 'koa';
import { z } from 'zod';
import { issueBearer } from '../../../shared/console/bearer-tokens.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

/**
 * POST /api/v1/auth/session/token → `{token, expires_at}`: a bearer token for the caller's own
 * session, valid 15 minutes (never past the session's end), for a console site whose requests
 * carry no cookie because it is not same-site with the API. Asked again with that token before it
 * expires, it answers the next one. A POST, so a cookie-authenticated call passes the CSRF Origin
 * check, and CORS lets only the console's origin read the answer; signing out or revoking the
 * session ends every token issued for it.
 */
export function issueSessionToken(services: GatewayServices): Middleware {
  return async (ctx) => {
    await readConsoleBody(ctx, z.strictObject({}));
    const { session } = signedIn(ctx);
    const issued = issueBearer(session, services.linkSecret, services.clock.now());
    ctx.set('Cache-Control', 'no-store');
    sendData(ctx, { token: issued.token, expires_at: issued.expiresAt.toISOString() });
  };
}
