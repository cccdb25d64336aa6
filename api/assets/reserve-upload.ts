import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { signUpload } from '../../shared/assets/upload-token.js';
import { CONTENT_TYPES } from '../../shared/assets/verify-image.js';
import { GatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { randomBase62 } from '../../shared/ids.js';
import { baseUrl } from '../videos/task-responses.js';
import { refuseNoAccess, type AssetSurface } from './asset-surface.js';

const UPLOAD_TTL_MS = 15 * 60_000;

export const reserveSchema = z.strictObject({
  filename: z.string().min(1).max(255),
  content_type: z.enum(Object.keys(CONTENT_TYPES) as [string, ...string[]], {
    error: 'must be image/jpeg, image/png or image/webp',
  }),
  size_bytes: z.number().int().positive(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits')
    .optional(),
});

/**
 * POST /v1/assets: reserves an upload. The answer is a short-lived storage URL (15 minutes) bound
 * to the declared size and type — an S3 presigned PUT, or with the local driver a signed URL the
 * gateway serves itself — and the exact headers the PUT must carry. The PUT carries no API key.
 */
export function reserveUpload(services: GatewayServices, surface: AssetSurface): Middleware {
  return async (ctx: Context) => {
    const owner = await surface.owner(ctx);
    refuseNoAccess(owner);
    const body = await surface.body(ctx, reserveSchema);
    if (body.size_bytes > services.config.assetMaxBytes) {
      throw new GatewayError('asset_too_large', 413, `an upload is at most ${services.config.assetMaxBytes} bytes`, {
        param: 'size_bytes',
      });
    }
    const now = services.clock.now();
    const id = `up_${randomBase62(20)}`;
    const objectKey = `assets/${owner.userId}/${id}`;
    const expiresAt = now + UPLOAD_TTL_MS;
    await services.db
      .insertInto('asset_uploads')
      .values({
        id,
        user_id: owner.userId,
        api_key_id: owner.keyId,
        filename: body.filename,
        content_type: body.content_type,
        size_bytes: body.size_bytes,
        sha256: body.sha256 ?? null,
        object_key: objectKey,
        expires_at: new Date(expiresAt),
      })
      .execute();
    const presigned = await services.storage.presignPut(objectKey, {
      contentType: body.content_type,
      contentLength: body.size_bytes,
      expiresInSeconds: UPLOAD_TTL_MS / 1000,
    });
    const token = signUpload(
      { uploadId: id, objectKey, contentType: body.content_type, sizeBytes: body.size_bytes, expiresAt },
      services.linkSecret,
    );
    ctx.set('Cache-Control', 'no-store');
    surface.send(ctx, {
      upload_id: id,
      upload_url: presigned?.url ?? `${baseUrl(services, ctx)}/v1/uploads/${token}`,
      method: 'PUT',
      headers: presigned?.headers ?? { 'content-type': body.content_type },
      expires_at: new Date(expiresAt).toISOString(),
    });
  };
}
