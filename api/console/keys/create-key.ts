import type { Middleware } from 'koa';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { assertGroupSelectable } from '../../../shared/keys/group-access.js';
import { mailKeyCreated } from '../../../shared/keys/key-notice.js';
import { keyCreateSchema, keyView } from '../../../shared/keys/key-settings.js';
import { createKey as createApiKey } from '../../../shared/keys/manage-keys.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';
import { keyAdmin } from './key-access.js';

/** POST /api/v1/keys: 201 with the key's view and, this once only, the full secret in `key`; the owner is mailed a notice. */
export function createKey(services: GatewayServices): Middleware {
  return async (ctx) => {
    const settings = await readConsoleBody(ctx, keyCreateSchema);
    const { user } = signedIn(ctx);
    assertGroupSelectable(services.catalog, user, settings.group);
    const { row, key } = await createApiKey(keyAdmin(services), user.id, settings);
    await mailKeyCreated(services.jobs, user, row, { ip: ctx.ip });
    ctx.set('Cache-Control', 'no-store');
    sendData(ctx, { ...keyView(row), key }, 201);
  };
}
