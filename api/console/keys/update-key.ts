import type { Middleware } from 'koa';
import { GatewayError } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { assertGroupSelectable } from '../../../shared/keys/group-access.js';
import { keyUpdateSchema, keyView } from '../../../shared/keys/key-settings.js';
import { updateKey as updateApiKey } from '../../../shared/keys/manage-keys.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';
import { keyAdmin, keyIdParam, keyNotFound, ownKey } from './key-access.js';

/**
 * PATCH /api/v1/keys/{id}: sets the given fields, leaves omitted ones unchanged.
 *
 * The compatibility profile is refused whenever present, even with the key's current value: it
 * is fixed at creation, and a client that believes it can send it should learn otherwise.
 * A revoked key answers 409: revocation is final, and editing it (say, its expiry) would suggest
 * it could serve again; the request is well-formed, it conflicts with the key's state.
 */
export function updateKey(services: GatewayServices): Middleware {
  return async (ctx) => {
    keyIdParam(ctx); // a malformed id is 404 before the body is even read
    const changes = await readConsoleBody(ctx, keyUpdateSchema);
    if (changes.compatibility_profile !== undefined) {
      throw new GatewayError(
        'immutable_field',
        400,
        "'compatibility_profile' is immutable: create a new key to change it",
        {
          param: 'compatibility_profile',
        },
      );
    }
    const current = await ownKey(services, ctx);
    if (current.status === 'revoked')
      throw new GatewayError('conflict', 409, 'this key is revoked and can no longer be changed');
    const { user } = signedIn(ctx);
    assertGroupSelectable(services.catalog, user, changes.group, current.group_id);
    const row = await updateApiKey(keyAdmin(services), user.id, current.id, changes);
    if (!row) throw keyNotFound(); // deleted between the two queries
    sendData(ctx, keyView(row));
  };
}
