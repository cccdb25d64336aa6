import type { Context } from 'koa';
import { findUserKey } from '../../../shared/db/api-keys.js';
import type { ApiKeyRow } from '../../../shared/db/schema.js';
import { notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import type { KeyAdmin } from '../../../shared/keys/manage-keys.js';
import { signedIn } from '../session.js';
import { UUID_PATTERN as UUID } from '../../../shared/ids.js';

export const keyNotFound = () => notFound('no such key');

/** The `:id` of the path; a malformed id is a missing key, and never reaches Postgres (which would reject it). */
export function keyIdParam(ctx: Context): string {
  const id = ctx.params.id as string | undefined;
  if (!id || !UUID.test(id)) throw keyNotFound();
  return id;
}

/** The signed-in user's key named by the path; another user's key is indistinguishable from a missing one. */
export async function ownKey(services: GatewayServices, ctx: Context): Promise<ApiKeyRow> {
  const row = await findUserKey(services.db, signedIn(ctx).user.id, keyIdParam(ctx));
  if (!row) throw keyNotFound();
  return row;
}

/** Changes go through manage-keys, which tells every gateway process to drop its cached copy. */
export function keyAdmin(services: GatewayServices): KeyAdmin {
  return {
    db: services.db,
    redis: services.redis,
    channel: services.redisKeys.keyInvalidation,
    catalog: services.catalog,
    cache: services.responseCache,
  };
}
