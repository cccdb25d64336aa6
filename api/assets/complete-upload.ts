import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { assetView } from '../../shared/assets/scope.js';
import { verifyImage } from '../../shared/assets/verify-image.js';
import { GatewayError, isGatewayError, notFound } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { randomBase62 } from '../../shared/ids.js';
import type { AssetSurface } from './asset-surface.js';

async function readAll(services: GatewayServices, objectKey: string): Promise<Buffer | undefined> {
  const stored = await services.storage.get(objectKey);
  if (!stored) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stored.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * POST /v1/assets/uploads/{upload_id}/complete: verifies the stored object (the declared size, the
 * sha256 when given, the image itself — verify-image.ts), stores the verified bytes under the
 * asset's own key, removes the upload's object, and answers the asset. Idempotent: after a success
 * it answers the same asset again; a refused upload's object is deleted.
 */
export function completeUpload(services: GatewayServices, surface: AssetSurface): Middleware {
  return async (ctx) => {
    const owner = await surface.owner(ctx);
    const id = String(ctx.params.uploadId ?? '');
    if (!/^up_[A-Za-z0-9]{20}$/.test(id)) throw notFound('no such upload');
    const upload = await services.db
      .selectFrom('asset_uploads')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', owner.userId)
      .executeTakeFirst();
    // Another key's upload is not this key's to confirm (under `own` and `none` it is invisible);
    // the console confirms any of the account's.
    const visible = (apiKeyId: string | null) =>
      !owner.key || owner.key.assetAccess === 'all' || apiKeyId === owner.keyId;
    // Completed already (also once the sweep has removed the reservation, or by a concurrent
    // complete that has just taken the uploaded object): the same asset again.
    const completed = async () => {
      const asset = await services.db
        .selectFrom('assets')
        .selectAll()
        .where('upload_id', '=', id)
        .where('user_id', '=', owner.userId)
        .executeTakeFirst();
      return asset && visible(asset.api_key_id) ? asset : undefined;
    };
    if (!upload || upload.asset_id) {
      const done = await completed();
      if (done) return surface.send(ctx, assetView(done));
      throw notFound(upload && visible(upload.api_key_id) ? "this upload's asset was deleted" : 'no such upload');
    }
    if (!visible(upload.api_key_id)) throw notFound('no such upload');
    const bytes = await readAll(services, upload.object_key);
    if (!bytes) {
      const done = await completed();
      if (done) return surface.send(ctx, assetView(done));
      throw new GatewayError('upload_incomplete', 409, 'nothing was uploaded to the storage URL yet');
    }
    try {
      if (bytes.length !== upload.size_bytes)
        throw new GatewayError(
          'upload_mismatch',
          400,
          `${bytes.length} bytes were uploaded, ${upload.size_bytes} declared`,
        );
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (upload.sha256 && upload.sha256 !== sha256)
        throw new GatewayError('upload_mismatch', 400, 'the uploaded bytes do not match the declared sha256');
      const { width, height } = await verifyImage(bytes, upload.content_type);
      const assetId = `asset_${randomBase62(20)}`;
      // The verified bytes get a key no upload URL names: an S3 presigned PUT stays usable until it
      // expires, and must not replace them under the recorded sha256.
      const objectKey = `assets/${upload.user_id}/${assetId}`;
      await services.storage.put(objectKey, bytes, { contentType: upload.content_type, contentLength: bytes.length });
      const asset = await services.db
        .transaction()
        .execute(async (trx) => {
          const row = await trx
            .insertInto('assets')
            .values({
              id: assetId,
              user_id: upload.user_id,
              api_key_id: upload.api_key_id,
              upload_id: upload.id,
              filename: upload.filename,
              content_type: upload.content_type,
              size_bytes: bytes.length,
              width,
              height,
              sha256,
              object_key: objectKey,
            })
            .onConflict((oc) => oc.column('upload_id').doNothing())
            .returningAll()
            .executeTakeFirst();
          // A concurrent complete won: answer its asset.
          const final =
            row ??
            (await trx.selectFrom('assets').selectAll().where('upload_id', '=', upload.id).executeTakeFirstOrThrow());
          await trx.updateTable('asset_uploads').set({ asset_id: final.id }).where('id', '=', upload.id).execute();
          return final;
        })
        .catch(async (err: unknown) => {
          await services.storage.delete(objectKey).catch(() => undefined);
          throw err;
        });
      await Promise.all(
        [
          asset.object_key === objectKey ? undefined : services.storage.delete(objectKey),
          services.storage.delete(upload.object_key),
        ].map((p) => p?.catch(() => undefined)),
      );
      surface.send(ctx, assetView(asset));
    } catch (err) {
      // A refused upload leaves no object behind; the client reserves again.
      if (isGatewayError(err) && err.status < 500)
        await services.storage.delete(upload.object_key).catch(() => undefined);
      throw err;
    }
  };
}
