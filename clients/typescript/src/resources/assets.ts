import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { GatewayError, UploadError, type Reservation } from '../errors.js';
import { idSegment, nonEmpty } from '../validate.js';
import { Resource, type WithRequestID } from './base.js';

export type Asset = WithRequestID<{ id: string; reference: string; [field: string]: unknown }>;

function sniff(data: Uint8Array): string | undefined {
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data[0] === 0x89 && data[1] === 0x50 && data[2] === 0x4e && data[3] === 0x47) return 'image/png';
  const ascii = (from: number, to: number) => String.fromCharCode(...data.subarray(from, to));
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** `asset://<id>` for an asset (or its id), for use inside requests. */
export function reference(asset: { id: string; reference?: string } | string): string {
  return typeof asset === 'string' ? `asset://${nonEmpty('asset', asset)}` : (asset.reference ?? `asset://${asset.id}`);
}

export class Assets extends Resource {
  /**
   * Reserve → PUT the bytes to the short-lived storage URL (without the API key) → complete.
   * Uploading starts no generation. A failure throws UploadError with its stage; `resumeUpload`
   * carries it on.
   */
  async upload(source: string | Uint8Array, options: { filename?: string; contentType?: string } = {}): Promise<Asset> {
    const data = typeof source === 'string' ? new Uint8Array(await readFile(source)) : source;
    if (!(data instanceof Uint8Array)) throw new TypeError('source must be a file path or bytes');
    const filename = options.filename ?? (typeof source === 'string' ? basename(source) : 'upload');
    const contentType = options.contentType ?? sniff(data);
    if (!contentType) throw new TypeError('contentType could not be detected (JPEG, PNG or WebP): pass contentType');
    let reservation: Reservation;
    try {
      reservation = (await this.request('POST', '/v1/assets', {
        body: {
          filename,
          content_type: contentType,
          size_bytes: data.byteLength,
          sha256: createHash('sha256').update(data).digest('hex'),
        },
      })) as unknown as Reservation;
    } catch (err) {
      throw err instanceof GatewayError ? new UploadError(err, 'reserve') : err;
    }
    return this.putAndComplete(reservation, data);
  }

  /** Confirms an upload; idempotent, so calling it again after a failure is safe. */
  async complete(uploadId: string): Promise<Asset> {
    try {
      return await this.request<Asset>('POST', `/v1/assets/uploads/${idSegment('uploadId', uploadId)}/complete`);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      const assetId = (err.body as { asset_id?: unknown } | undefined)?.asset_id;
      throw new UploadError(err, 'complete', uploadId, typeof assetId === 'string' ? assetId : undefined);
    }
  }

  /** Carries a failed upload on: the PUT again (while its URL is valid), or the confirmation. */
  resumeUpload(error: UploadError): Promise<Asset> {
    if (!(error instanceof UploadError)) throw new TypeError('resumeUpload takes the UploadError an upload threw');
    if (error.stage === 'complete' && error.uploadId) return this.complete(error.uploadId);
    if (error.stage === 'put' && error.source) return this.putAndComplete(error.source.reservation, error.source.data);
    throw new TypeError('this upload failed before it was reserved: upload again');
  }

  get(id: string): Promise<Asset> {
    return this.request('GET', `/v1/assets/${idSegment('id', id)}`);
  }

  list(
    query: { limit?: number; cursor?: string } = {},
  ): Promise<WithRequestID<{ data: Asset[]; [k: string]: unknown }>> {
    return this.request('GET', '/v1/assets', { query });
  }

  /** `{url, expires_at}`: short-lived and owner-scoped — use it at once, never store or share it. */
  downloadUrl(id: string): Promise<WithRequestID<{ url: string; expires_at: string }>> {
    return this.request('GET', `/v1/assets/${idSegment('id', id)}/content`);
  }

  async delete(id: string): Promise<void> {
    await this.request('DELETE', `/v1/assets/${idSegment('id', id)}`);
  }

  private async putAndComplete(reservation: Reservation, data: Uint8Array): Promise<Asset> {
    const uploadId = String(reservation.upload_id);
    try {
      if ((reservation.method ?? 'PUT').toUpperCase() !== 'PUT')
        throw new GatewayError(`unexpected upload method ${reservation.method}`, { code: 'invalid_response' });
      await this.client.transport.put(reservation.upload_url, data, reservation.headers ?? {});
    } catch (err) {
      const cause =
        err instanceof GatewayError ? err : new GatewayError((err as Error).message, { code: 'invalid_upload_url' });
      const failure = new UploadError(cause, 'put', uploadId);
      failure.source = { reservation, data };
      throw failure;
    }
    return this.complete(uploadId);
  }
}
