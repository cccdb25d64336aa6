import { GatewayError } from '../errors.js';
import { fieldPath } from '../validation.js';
import { checkForwardedImage } from './forwarded-image.js';

/** Bytes of one inline image a text call may carry (the spec's forwarding limit per image). */
const MAX_INLINE_BYTES = 10 * 1024 * 1024;

type Path = (string | number)[];

interface InlineImage {
  path: Path;
  declared: string;
  data: string;
}

const DATA_URI = /^data:([^;,]*);base64,/i;

/**
 * The images a text call carries inline, in any client protocol's form: a `data:` URI as an
 * `image_url` (chat completions, Responses), a base64 `source` (Messages) or `inlineData` /
 * `inline_data` (generateContent). Found by shape, so one walk serves every surface.
 */
function inlineImages(value: unknown, path: Path, found: InlineImage[]): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) inlineImages(value[i], [...path, i], found);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  if (o.type === 'base64' && typeof o.data === 'string' && typeof o.media_type === 'string') {
    found.push({ path, declared: o.media_type, data: o.data });
    return;
  }
  for (const [k, v] of Object.entries(o)) {
    const url = k === 'image_url' ? (typeof v === 'string' ? v : (v as { url?: unknown } | null)?.url) : undefined;
    const head = typeof url === 'string' ? DATA_URI.exec(url) : null;
    if (head) {
      found.push({ path: [...path, k], declared: head[1]!, data: (url as string).slice(head[0].length) });
    } else if ((k === 'inlineData' || k === 'inline_data') && v && typeof v === 'object') {
      const d = v as Record<string, unknown>;
      const declared = d.mimeType ?? d.mime_type;
      if (typeof declared === 'string' && typeof d.data === 'string')
        found.push({ path: [...path, k], declared, data: d.data });
    } else inlineImages(v, [...path, k], found);
  }
}

// Markers one of the forms above must contain: a body without any is not walked (the common call).
const MARKERS = ['base64', 'nlineData', 'nline_data'];

/**
 * Checks every inline image of a text call's body as an upload is checked (forwarded-image.ts): its
 * type read from its bytes and equal to what it is labelled, at most 40 MP by its header, at most
 * 10 MiB. Before anything is reserved: a refusal is a 400 naming the field, charged nothing.
 * Non-image inline data (audio, documents) is refused elsewhere or passes as it is.
 */
export async function checkInlineImages(body: Record<string, unknown>, raw: Buffer | undefined): Promise<void> {
  if (raw && !MARKERS.some((m) => raw.includes(m))) return;
  const found: InlineImage[] = [];
  inlineImages(body, [], found);
  for (const image of found) {
    if (!image.declared.toLowerCase().startsWith('image/')) continue;
    const field = fieldPath(image.path);
    const bytes = Buffer.from(image.data, 'base64');
    if (bytes.length > MAX_INLINE_BYTES)
      throw new GatewayError(
        'invalid_request',
        400,
        `${field} holds ${bytes.length} bytes of image; at most ${MAX_INLINE_BYTES} are forwarded`,
        { param: field },
      );
    const checked = await checkForwardedImage(bytes, field);
    if (checked.contentType !== image.declared.toLowerCase())
      throw new GatewayError(
        'unsupported_media_type',
        400,
        `${field} is labelled ${image.declared} but its bytes are ${checked.contentType}`,
        { param: field },
      );
  }
}
