import type { Middleware } from 'koa';
import { z } from 'zod';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { publishOwnerChange } from '../../../shared/keys/key-cache.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

export const accountSettingsSchema = z.strictObject({ log_content: z.boolean().optional() });

async function settingsOf(services: GatewayServices, userId: string) {
  const row = await services.db
    .selectFrom('users')
    .select('log_content')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return { log_content: row.log_content };
}

/** GET /api/v1/account/settings. */
export function getAccountSettings(services: GatewayServices): Middleware {
  return async (ctx) => sendData(ctx, await settingsOf(services, signedIn(ctx).user.id));
}

/**
 * PATCH /api/v1/account/settings `{log_content}`: with content logging on, the account's calls keep
 * their prompt and completion in object storage (never in the usage table) for dataset exports.
 * Every process learns of the change within a second (the owner's cached keys are dropped).
 */
export function patchAccountSettings(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, accountSettingsSchema);
    const userId = signedIn(ctx).user.id;
    if (body.log_content !== undefined) {
      await services.db
        .updateTable('users')
        .set({ log_content: body.log_content, updated_at: new Date() })
        .where('id', '=', userId)
        .execute();
      await publishOwnerChange(services.redis, services.redisKeys.keyInvalidation, userId);
    }
    sendData(ctx, await settingsOf(services, userId));
  };
}
