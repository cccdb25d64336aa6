import type { Middleware } from 'koa';
import { listUserKeys } from '../../../shared/db/api-keys.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { keyView } from '../../../shared/keys/key-settings.js';
import { readPageQuery, sendPage } from '../envelope.js';
import { signedIn } from '../session.js';

/** GET /api/v1/keys: the signed-in user's keys, newest first. */
export function listKeys(services: GatewayServices): Middleware {
  return async (ctx) => {
    const query = readPageQuery(ctx);
    const { rows, total } = await listUserKeys(services.db, signedIn(ctx).user.id, query.page, query.pageSize);
    sendPage(ctx, query, rows.map(keyView), total);
  };
}
