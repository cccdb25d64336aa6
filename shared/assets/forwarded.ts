import sharp from 'sharp';
import type { AssetRow } from '../db/schema.js';
import type { ObjectStore } from '../storage/object-store.js';
import { MAX_PIXELS } from './verify-image.js';

/** What a model is sent of one image, and of all images of one request (spec, Limits). */
export const FORWARD_MAX_BYTES = 10 * 1024 * 1024;
export const FORWARD_TOTAL_BYTES = 20 * 1024 * 1024;

export interface Forwarded {
  objectKey: string;
  size: number;
  contentType: string;
}

const derivativeKey = (asset: Pick<AssetRow, 'object_key'>) => `${asset.object_key}.forward.jpg`;

async function readAll(storage: ObjectStore, key: string): Promise<Buffer> {
  const stored = await storage.get(key);
  if (!stored) throw new Error(`object ${key} is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of stored.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The object a model gets for an asset: the original when it is at most 10 MiB, otherwise a JPEG
 * derivative re-encoded (and, if need be, scaled down) to fit, made once and kept beside the
 * original, which stays unchanged.
 */
export async function forwardedObject(storage: ObjectStore, asset: AssetRow): Promise<Forwarded> {
  if (asset.size_bytes <= FORWARD_MAX_BYTES)
    return { objectKey: asset.object_key, size: asset.size_bytes, contentType: asset.content_type };
  const key = derivativeKey(asset);
  const kept = await storage.head(key);
  if (kept) return { objectKey: key, size: kept.size, contentType: 'image/jpeg' };
  const original = await readAll(storage, asset.object_key);
  let width = asset.width;
  let encoded = await sharp(original, { limitInputPixels: MAX_PIXELS })
    .rotate()
    .jpeg({ quality: 85, mozjpeg: true })
    .toBuffer();
  while (encoded.length > FORWARD_MAX_BYTES && width > 64) {
    width = Math.floor(width * 0.75);
    encoded = await sharp(original, { limitInputPixels: MAX_PIXELS })
      .rotate()
      .resize({ width })
      .jpeg({ quality: 80, mozjpeg: true })
      .toBuffer();
  }
  await storage.put(key, encoded, { contentType: 'image/jpeg' });
  return { objectKey: key, size: encoded.length, contentType: 'image/jpeg' };
}

/** Deleting an asset deletes what was made from it. */
export function deleteDerivatives(storage: ObjectStore, asset: Pick<AssetRow, 'object_key'>): Promise<void> {
  return storage.delete(derivativeKey(asset));
}
