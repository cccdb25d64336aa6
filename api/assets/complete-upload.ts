import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { assetView, findAsset } from '../../shared/assets/scope.js';
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
 * sha256 when given, the image itself — verify-image.ts) and answers the asset. Idempotent: after a
 * success it answers the same asset again; a refused upload's object is deleted.
 */
export function completeUpload(services: GatewayServices, surface: AssetSurface): Middleware {
  return async (ctx) => {
    const owner = await surface.owner(ctx);
    const id = String(ctx.params.uploadId ?? '');
    const upload = /^up_[A-Za-z0-9]{20}$/.test(id)
      ? await services.db.selectFrom('asset_uploads').selectAll().where('id', '=', id).where('user_id', '=', owner.userId).executeTakeFirst()
      : undefined;
    // Another key's upload is not this key's to confirm (under `own` and `none` it is invisible);
    // the console confirms any of the account's.
    if (!upload || (owner.key && owner.key.assetAccess !== 'all' && upload.api_key_id !== owner.keyId)) throw notFound('no such upload');
    if (upload.asset_id) {
      const done = await findAsset(services.db, undefined, owner.userId, upload.asset_id);
      if (done) {
        surface.send(ctx, assetView(done));
        return;
      }
      throw notFound('this upload\'s asset was deleted');
    }
    const bytes = await readAll(services, upload.object_key);
    if (!bytes) throw new GatewayError('upload_incomplete', 409, 'nothing was uploaded to the storage URL yet');
    try {
      if (bytes.length !== upload.size_bytes) throw new GatewayError('upload_mismatch', 400, `${bytes.length} bytes were uploaded, ${upload.size_bytes} declared`);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (upload.sha256 && upload.sha256 !== sha256) throw new GatewayError('upload_mismatch', 400, 'the uploaded bytes do not match the declared sha256');
      const { width, height } = await verifyImage(bytes, upload.content_type);
      const assetId = `asset_${randomBase62(20)}`;
      const asset = await services.db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('assets')
          .values({ id: assetId, user_id: upload.user_id, api_key_id: upload.api_key_id, upload_id: upload.id, filename: upload.filename, content_type: upload.content_type, size_bytes: bytes.length, width, height, sha256, object_key: upload.object_key })
          .onConflict((oc) => oc.column('upload_id').doNothing())
          .returningAll()
          .executeTakeFirst();
        // A concurrent complete won: answer its asset.
        const final = row ?? (await trx.selectFrom('assets').selectAll().where('upload_id', '=', upload.id).executeTakeFirstOrThrow());
        await trx.updateTable('asset_uploads').set({ asset_id: final.id }).where('id', '=', upload.id).execute();
        return final;
      });
      surface.send(ctx, assetView(asset));
    } catch (err) {
      // A refused upload leaves no object behind; the client reserves again.
      if (isGatewayError(err) && err.status < 500) await services.storage.delete(upload.object_key).catch(() => undefined);
      throw err;
    }
  };
}
