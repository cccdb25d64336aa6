import { GatewayError } from '../errors.js';
import type { ApiKeyContext } from '../keys/api-key.js';

interface Part {
  type: string;
  image_url?: { url: string };
}

/**
 * `asset://` references in a request. A key with asset_access `none` may not reference any (403);
 * otherwise an asset outside the key's scope answers exactly like a missing one. Asset storage
 * arrives with the assets surface: until then no reference resolves.
 */
export function checkAssetReferences(key: ApiKeyContext, parts: readonly Part[]): void {
  parts.forEach((part, i) => {
    const url = part.image_url?.url;
    if (!url?.startsWith('asset://')) return;
    const param = `content[${i}].image_url.url`;
    if (key.assetAccess === 'none') throw new GatewayError('asset_access_denied', 403, 'this key may not reference assets', { param });
    throw new GatewayError('reference_asset_unavailable', 400, `the referenced asset is not available: ${url}`, { param });
  });
}
