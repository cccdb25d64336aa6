import type { CatalogModel } from '../catalog/index.js';
import { badRequest, GatewayError } from '../errors.js';
import { checkDataUriImage } from './forwarded-image.js';

interface ReferencePart {
  type: string;
  image_url?: { url: string };
}

/**
 * A video task's reference images against its model's `reference_limits` (catalog): at most
 * `max_count` of them; each inline one (a data URI) decoded and checked like an upload — its type
 * read from its bytes and one of `types`, at most `max_bytes`, at most 40 MP by its header. URLs are
 * checked the same way when the gateway fetches them (re-hosting), and assets were checked at upload.
 * Runs before anything is reserved: a refusal is a 400 naming the part, charged nothing.
 */
export async function checkVideoReferences(model: CatalogModel, content: readonly ReferencePart[]): Promise<void> {
  const limits = model.reference_limits;
  let count = 0;
  for (const [i, part] of content.entries()) {
    if (part.type !== 'image_url' || !part.image_url) continue;
    const field = `content[${i}].image_url.url`;
    if (++count > limits.max_count)
      throw badRequest(`this model takes at most ${limits.max_count} reference images; this is one more`, field);
    const url = part.image_url.url;
    if (!url.startsWith('data:')) continue;
    const image = await checkDataUriImage(url, field, limits.max_bytes);
    if (!limits.types.includes(image.contentType as (typeof limits.types)[number]))
      throw new GatewayError(
        'unsupported_media_type',
        400,
        `${field} is ${image.contentType}; this model takes ${limits.types.join(', ')}`,
        { param: field },
      );
  }
}
