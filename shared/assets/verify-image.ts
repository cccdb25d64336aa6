import sharp, { type Metadata } from 'sharp';
import { GatewayError } from '../errors.js';

/** The spec's decoding limit. */
export const MAX_PIXELS = 40_000_000;

export const CONTENT_TYPES: Record<string, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

const refuse = (code: 'invalid_image' | 'unsupported_media_type', message: string) =>
  new GatewayError(code, 400, message);

/**
 * Checks an uploaded original with sharp: the type read from its bytes (JPEG, PNG or WebP) must be
 * the declared one; its header must say at most 40 million pixels before anything is decoded (a
 * tiny file claiming 60000 × 60000 is refused at once, in bounded memory); then one shrink-on-load
 * decode proves it whole (a truncated or corrupt image is refused).
 */
export async function verifyImage(bytes: Buffer, declared: string): Promise<{ width: number; height: number }> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw refuse('invalid_image', 'the file is not a readable image');
  }
  const format = meta.format as string | undefined;
  if (!format || !Object.values(CONTENT_TYPES).includes(format))
    throw refuse('unsupported_media_type', `the file is ${format ?? 'not an image'}; JPEG, PNG and WebP are accepted`);
  if (CONTENT_TYPES[declared] !== format)
    throw refuse('unsupported_media_type', `declared ${declared} but the bytes are ${format}`);
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width * height > MAX_PIXELS)
    throw refuse(
      'invalid_image',
      `the image has ${width} × ${height} pixels; at most ${MAX_PIXELS.toLocaleString('en')} are decoded`,
    );
  try {
    await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'truncated' })
      .resize(64, 64, { fit: 'inside' })
      .toBuffer();
  } catch {
    throw refuse('invalid_image', 'the image is truncated or corrupt');
  }
  return { width, height };
}
