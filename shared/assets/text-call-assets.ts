import type { Db } from '../db/index.js';
import type { AssetRow } from '../db/schema.js';
import { GatewayError } from '../errors.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { ObjectStore } from '../storage/object-store.js';
import { fieldPath } from '../validation.js';
import { FORWARD_TOTAL_BYTES, forwardedObject } from './forwarded.js';
import { findAsset } from './scope.js';

type Path = (string | number)[];

/** Where an image reference stands in a text call's body, and how to write the image there inline. */
interface ImageSlot {
  path: Path;
  ref: string;
  /** Replaces the reference's container with the image inline, in the protocol's own form. */
  inline(contentType: string, data: string): void;
}

const REFERENCE = /^asset:\/\/(asset_[A-Za-z0-9]{20})$/;
const isRef = (v: unknown): v is string => typeof v === 'string' && v.startsWith('asset://');

/**
 * The image positions of every client protocol that take a URL: chat completions' and Responses'
 * `image_url` (a string or `{url}`), Messages' `source: {type: "url", url}` and generateContent's
 * `fileData: {fileUri}`. Only those: text that is, or mentions, a reference is the client's words.
 */
function slots(value: unknown, path: Path, found: ImageSlot[]): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) slots(value[i], [...path, i], found);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    if (k === 'image_url' && isRef(v)) {
      found.push({ path: [...path, k], ref: v, inline: (type, data) => void (o[k] = `data:${type};base64,${data}`) });
    } else if (k === 'image_url' && v && typeof v === 'object' && isRef((v as { url?: unknown }).url)) {
      const holder = v as Record<string, unknown>;
      found.push({
        path: [...path, k, 'url'],
        ref: holder.url as string,
        inline: (type, data) => void (holder.url = `data:${type};base64,${data}`),
      });
    } else if (k === 'source' && v && typeof v === 'object' && (v as { type?: unknown }).type === 'url') {
      const source = v as Record<string, unknown>;
      if (isRef(source.url))
        found.push({
          path: [...path, k, 'url'],
          ref: source.url,
          inline: (type, data) => void (o[k] = { type: 'base64', media_type: type, data }),
        });
    } else if ((k === 'fileData' || k === 'file_data') && v && typeof v === 'object') {
      const file = v as Record<string, unknown>;
      const uri = file.fileUri ?? file.file_uri;
      if (isRef(uri)) {
        found.push({
          path: [...path, k, file.fileUri !== undefined ? 'fileUri' : 'file_uri'],
          ref: uri,
          inline: (type, data) => {
            delete o[k];
            o[k === 'fileData' ? 'inlineData' : 'inline_data'] =
              k === 'fileData' ? { mimeType: type, data } : { mime_type: type, data };
          },
        });
      }
    } else slots(v, [...path, k], found);
  }
}

export interface AssetReader {
  db: Db;
  storage: ObjectStore;
}

/** The asset a slot references, within the key's scope: 403 `asset_access_denied` for `none`, 400 `reference_asset_unavailable` out of scope or missing. */
async function assetOf(db: Db, key: ApiKeyContext, slot: ImageSlot): Promise<AssetRow> {
  const param = fieldPath(slot.path);
  if (key.assetAccess === 'none')
    throw new GatewayError('asset_access_denied', 403, 'this key may not reference assets', { param });
  const id = REFERENCE.exec(slot.ref)?.[1];
  const asset = id ? await findAsset(db, key, key.userId, id) : undefined;
  if (!asset) throw unavailable(slot);
  return asset;
}

const unavailable = (slot: ImageSlot) =>
  new GatewayError('reference_asset_unavailable', 400, `the referenced asset is not available: ${slot.ref}`, {
    param: fieldPath(slot.path),
  });

/**
 * Checks a text call's `asset://` image references against the key's scope without reading them:
 * for a call that is accepted now and run later (a private chat call, stored for its job), so a
 * reference the key may not use is refused before anything is stored (docs/reference/idempotency.md).
 */
export async function checkAssetReferences(db: Db, key: ApiKeyContext, body: Record<string, unknown>): Promise<void> {
  const found: ImageSlot[] = [];
  slots(body, [], found);
  for (const slot of found) await assetOf(db, key, slot);
}

/**
 * A text call's `asset://` image references, resolved with the scope rules of every other surface
 * (a key with asset_access `none`: 403 `asset_access_denied`; an asset out of the key's scope, or
 * missing: 400 `reference_asset_unavailable`) and sent inline — the asset's bytes (a 10 MiB
 * derivative of a larger original), 20 MiB a request at most — so no upstream ever sees `asset://`,
 * and none needs to reach the gateway to read them. Undefined when the body references none.
 */
export async function inlineAssetImages(
  reader: AssetReader,
  key: ApiKeyContext,
  body: Record<string, unknown>,
  raw: Buffer | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (raw && !raw.includes('asset://')) return undefined;
  const resolved = structuredClone(body);
  const found: ImageSlot[] = [];
  slots(resolved, [], found);
  if (found.length === 0) return undefined;
  let total = 0;
  for (const slot of found) {
    const asset = await assetOf(reader.db, key, slot);
    const forwarded = await forwardedObject(reader.storage, asset);
    total += forwarded.size;
    if (total > FORWARD_TOTAL_BYTES)
      throw new GatewayError(
        'invalid_request',
        400,
        `the referenced images exceed ${FORWARD_TOTAL_BYTES / 1024 / 1024} MiB together at ${slot.ref}`,
        { param: fieldPath(slot.path) },
      );
    const stored = await reader.storage.get(forwarded.objectKey);
    if (!stored) throw unavailable(slot);
    const chunks: Buffer[] = [];
    for await (const chunk of stored.body) chunks.push(chunk as Buffer);
    slot.inline(forwarded.contentType, Buffer.concat(chunks).toString('base64'));
  }
  return resolved;
}
