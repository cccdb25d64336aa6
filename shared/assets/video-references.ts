import type { CatalogModel } from '../catalog/index.js';
import { badRequest } from '../errors.js';
import type { ImageFetchLimits } from './fetch-images.js';
import { checkDataUriImage, requireImageType } from './forwarded-image.js';

interface ReferencePart {
  type: string;
  image_url?: { url: string };
}

/**
 * A video task's reference images against its model's `reference_limits` (catalog): at most
 * `max_count` of them; each inline one (a data URI) decoded and checked like an upload — its type
 * read from its bytes and one of `types`, at most `max_bytes`, at most 40 MP by its header. https
 * URLs the gateway fetches (re-hosting) are held to the same limits when fetched
 * (referenceFetchLimits); URLs passed through unfetched count here, and the provider that fetches
 * them checks their bytes (docs/reference/tasks.md); assets were checked at upload.
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
    requireImageType(await checkDataUriImage(url, field, limits.max_bytes), limits.types, field);
  }
}

/**
 * What the gateway fetches of the https references it re-hosts for a video model that cannot fetch
 * them itself (`accepts_urls: false`): the model's `reference_limits` (bytes of one image, its
 * types) within the IMAGE_FETCH_* limits, so a fetched reference is held to what an inline one is.
 */
export function referenceFetchLimits(model: CatalogModel, limits: ImageFetchLimits): ImageFetchLimits {
  const own = model.reference_limits;
  return { ...limits, maxBytes: Math.min(limits.maxBytes, own.max_bytes), types: own.types };
}
