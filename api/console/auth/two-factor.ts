import type { Middleware } from 'koa';
import { z } from 'zod';
import { confirmSensitive } from '../../../shared/console/sensitive.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';
import { confirmation } from './fields.js';

/** GET /api/v1/auth/mfa/status → `{enabled}`. */
export const mfaStatus: Middleware = async (ctx) => {
  sendData(ctx, { enabled: signedIn(ctx).user.two_factor_enabled });
};

export const twoFactorSchema = z.strictObject({ enabled: z.boolean(), ...confirmation.shape });

/** POST /api/v1/auth/two-factor `{enabled, password, code}` (a `two_factor` code, consumed) → `{enabled}`. */
export function setTwoFactor(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, twoFactorSchema);
    const { user } = signedIn(ctx);
    await confirmSensitive(services, user, 'two_factor', body);
    const row = await services.db
      .updateTable('users')
      .set({ two_factor_enabled: body.enabled, updated_at: new Date() })
      .where('id', '=', user.id)
      .returning('two_factor_enabled')
      .executeTakeFirstOrThrow();
    sendData(ctx, { enabled: row.two_factor_enabled });
  };
}
