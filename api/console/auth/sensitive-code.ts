import type { Middleware } from 'koa';
import { z } from 'zod';
import { SENSITIVE_ACTIONS, sendCode } from '../../../shared/console/codes.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

// Sign-in, sign-up and reset codes are sent by those flows themselves, never on request.
export const sensitiveCodeSchema = z.strictObject({ action: z.enum(SENSITIVE_ACTIONS) });

/** POST /api/v1/auth/sensitive-code `{action}` → 202 `{expires_at, cooldown_seconds}`: e-mails the signed-in user a code for that action. */
export function sensitiveCode(services: GatewayServices): Middleware {
  return async (ctx) => {
    const { action } = await readConsoleBody(ctx, sensitiveCodeSchema);
    const { user } = signedIn(ctx);
    const sent = await sendCode(services, user, action);
    sendData(ctx, { expires_at: sent.expiresAt.toISOString(), cooldown_seconds: sent.cooldownSeconds }, 202);
  };
}
