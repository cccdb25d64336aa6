import type { Middleware } from 'koa';
import { z } from 'zod';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { keyView } from '../../../shared/keys/key-settings.js';
import { setKeyStatus } from '../../../shared/keys/manage-keys.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';
import { keyAdmin, keyIdParam, keyNotFound, ownKey } from './key-access.js';

/**
 * POST /api/v1/keys/{id}/revoke: final; every gateway process drops the key at once (Redis pub/sub).
 * Revoking again answers the same view and keeps the first revocation time.
 */
export function revokeKey(services: GatewayServices): Middleware {
  return async (ctx) => {
    keyIdParam(ctx);
    await readConsoleBody(ctx, z.strictObject({}));
    const current = await ownKey(services, ctx);
    if (current.status === 'revoked') return sendData(ctx, keyView(current));
    const row = await setKeyStatus(keyAdmin(services), signedIn(ctx).user.id, current.id, 'revoked');
    if (!row) throw keyNotFound();
    sendData(ctx, keyView(row));
  };
}
