import type { Middleware } from 'koa';
import { verifyUpload } from '../../shared/assets/upload-token.js';
import { GatewayError, notFound } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';

/**
 * PUT /v1/uploads/{token}: the local driver's storage URL. No API key: the signed token is the
 * credential, bound to one object, size and type, for 15 minutes, and only until the upload is
 * completed (409 after). The bytes stream to disk; a body of another length or type is refused and
 * nothing is stored.
 */
export function putUpload(services: GatewayServices): Middleware {
  return async (ctx) => {
    const claims = verifyUpload(String(ctx.params.token), services.linkSecret, services.clock.now());
    if (!claims) throw notFound('this upload URL is invalid or has expired');
    const upload = await services.db
      .selectFrom('asset_uploads')
      .select('asset_id')
      .where('id', '=', claims.uploadId)
      .executeTakeFirst();
    if (!upload || upload.asset_id)
      throw new GatewayError('conflict', 409, 'this upload is already completed: reserve a new upload for other bytes');
    if ((ctx.get('content-type') || '').split(';')[0]!.trim().toLowerCase() !== claims.contentType) {
      throw new GatewayError(
        'upload_mismatch',
        400,
        `this upload must be sent with Content-Type: ${claims.contentType}`,
      );
    }
    const length = Number(ctx.get('content-length'));
    if (ctx.get('content-length') === '' || length !== claims.sizeBytes) {
      throw new GatewayError(
        'upload_mismatch',
        400,
        `this upload must be exactly ${claims.sizeBytes} bytes, with Content-Length`,
      );
    }
    await services.storage
      .put(claims.objectKey, ctx.req, { contentType: claims.contentType, contentLength: claims.sizeBytes })
      .catch((err: Error) => {
        throw new GatewayError('upload_mismatch', 400, `the upload was not stored: ${err.message}`);
      });
    ctx.status = 200;
    ctx.body = { upload_id: claims.uploadId, size_bytes: claims.sizeBytes };
  };
}
