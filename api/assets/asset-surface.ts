import type { Context } from 'koa';
import type { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readConsoleBody } from '../console/body.js';
import { sendData } from '../console/envelope.js';
import { signedIn } from '../console/session.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateAndCount } from '../http/credential.js';

/** Who acts on assets: a key (its scope applies) or the signed-in console user (the whole account). */
export interface AssetOwner {
  userId: string;
  /** null: uploaded in the console. */
  keyId: string | null;
  /** The key whose `asset_access` scopes what is seen; undefined in the console. */
  key: ApiKeyContext | undefined;
}

/** What differs between the gateway's `/v1/assets` and the console's `/api/v1/assets`: one record each. */
export interface AssetSurface {
  owner(ctx: Context): Promise<AssetOwner>;
  body<S extends z.ZodType>(ctx: Context, schema: S): Promise<z.infer<S>>;
  send(ctx: Context, data: unknown, status?: number): void;
  /** Lists answer the console's paginated envelope (`page`, `page_size`) rather than a cursor list. */
  readonly paged: boolean;
}

export function keySurface(services: GatewayServices): AssetSurface {
  return {
    async owner(ctx) {
      const key = await authenticateAndCount(ctx, services);
      return { userId: key.userId, keyId: key.id, key };
    },
    async body(ctx, schema) {
      return parseOrThrow(schema, (await readJsonObject(ctx, services.config.http.bodyLimitBytes)).value);
    },
    send(ctx, data, status = 200) {
      ctx.status = status;
      ctx.body = data;
    },
    paged: false,
  };
}

export const consoleSurface: AssetSurface = {
  async owner(ctx) {
    return { userId: signedIn(ctx).user.id, keyId: null, key: undefined };
  },
  body: (ctx, schema) => readConsoleBody(ctx, schema),
  send: (ctx, data, status) => sendData(ctx, data, status),
  paged: true,
};

export function refuseNoAccess(owner: AssetOwner): void {
  if (owner.key?.assetAccess === 'none')
    throw new GatewayError('asset_access_denied', 403, 'this key may not use assets');
}
