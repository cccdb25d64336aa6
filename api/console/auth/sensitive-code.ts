import type { Middleware } from 'koa';
import { z } from 'zod';
import { CODE_ACTIONS, sendCode } from '../../../shared/console/codes.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

// sign_in codes are sent by the sign-in itself, never on request.
export const sensitiveCodeSchema = z.strictObject({ action: z.enum(CODE_ACTIONS.filter((a) => a !== 'sign_in') as [string, ...string[]]) });

/** POST /api/v1/auth/sensitive-code `{action}` → 202 `{expires_at, cooldown_seconds}`: e-mails the signed-in user a code for that action. */
export function sensitiveCode(services: GatewayServices): Middleware {
  return async (ctx) => {
    const { action } = await readConsoleBody(ctx, sensitiveCodeSchema);
    const { user } = signedIn(ctx);
    const sent = await sendCode(services, user, action as (typeof CODE_ACTIONS)[number]);
    sendData(ctx, { expires_at: sent.expiresAt.toISOString(), cooldown_seconds: sent.cooldownSeconds }, 202);
  };
}
