import type { Middleware } from 'koa';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { groupView, selectableGroups } from '../../../shared/keys/group-access.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

/** GET /api/v1/keys/groups: the groups the signed-in user may give a key (what the key form offers). */
export function listKeyGroups(services: GatewayServices): Middleware {
  return async (ctx) => {
    sendData(ctx, selectableGroups(services.catalog, signedIn(ctx).user).map(groupView));
  };
}
