import sharp from 'sharp';
import { badRequest, GatewayError } from '../errors.js';
import { MAX_PIXELS } from './verify-image.js';

/**
 * Images the gateway forwards to a model (fetched from a URL, sent as a data URI, or re-hosted for
 * a model that fetches nothing itself) are checked the way uploads are: the type is read from the
 * bytes — never from a server's `Content-Type` or a data URI's label — and the pixel count from the
 * header, before anything is decoded, so a small file that claims 60000 × 60000 costs nothing.
 */
const FORMATS: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };
export const FORWARDED_TYPES = Object.values(FORMATS);

export interface CheckedImage {
  /** The type the bytes are, whatever they were labelled. */
  contentType: string;
  width: number;
  height: number;
}

/** Reads the image's header; refuses (400 naming `field`) what is not a JPEG, PNG, WebP or GIF of at most 40 MP. */
export async function checkForwardedImage(bytes: Buffer, field: string): Promise<CheckedImage> {
  let format: string | undefined;
  let width = 0;
  let height = 0;
  try {
    // Only the header is read: metadata() decodes no pixels.
    const meta = await sharp(bytes, { limitInputPixels: false, animated: false }).metadata();
    format = meta.format;
    width = meta.width ?? 0;
    height = meta.height ?? 0;
  } catch {
    throw new GatewayError('invalid_image', 400, `${field} is not a readable image`, { param: field });
  }
  const contentType = format === undefined ? undefined : FORMATS[format];
  if (!contentType)
    throw new GatewayError(
      'unsupported_media_type',
      400,
      `${field} is ${format ?? 'not an image'}; JPEG, PNG, WebP and GIF images are forwarded`,
      { param: field },
    );
  if (width * height > MAX_PIXELS)
    throw new GatewayError(
      'invalid_image',
      400,
      `${field} has ${width} × ${height} pixels; at most ${MAX_PIXELS.toLocaleString('en')} are accepted`,
      { param: field },
    );
  return { contentType, width, height };
}

/** Refuses (400 naming `field`) an image whose type, read from its bytes, is not one of `types` (a model's reference_limits). */
export function requireImageType(image: CheckedImage, types: readonly string[], field: string): void {
  if (types.includes(image.contentType)) return;
  throw new GatewayError(
    'unsupported_media_type',
    400,
    `${field} is ${image.contentType}; this model takes ${types.join(', ')}`,
    { param: field },
  );
}

const DATA_URI = /^data:([^;,]+)?(;[^,]*)?,/i;

export interface DataUriImage extends CheckedImage {
  bytes: Buffer;
}

/**
 * A `data:` image URI, decoded and checked like any forwarded image; its label must agree with its
 * bytes (a PNG labelled `image/jpeg` is refused: upstreams that trust the label would misread it).
 */
export async function checkDataUriImage(uri: string, field: string, maxBytes: number): Promise<DataUriImage> {
  const head = DATA_URI.exec(uri);
  if (!head || !/;base64$/i.test(head[2] ?? '')) throw badRequest(`${field} must be a data:image/…;base64 URI`, field);
  const bytes = Buffer.from(uri.slice(head[0].length), 'base64');
  if (bytes.length > maxBytes)
    throw badRequest(`${field} holds ${bytes.length} bytes; at most ${maxBytes} are accepted`, field);
  const checked = await checkForwardedImage(bytes, field);
  const declared = (head[1] ?? '').toLowerCase();
  if (declared !== checked.contentType)
    throw new GatewayError(
      'unsupported_media_type',
      400,
      `${field} is labelled ${declared || 'with no type'} but its bytes are ${checked.contentType}`,
      { param: field },
    );
  return { bytes, ...checked };
}
