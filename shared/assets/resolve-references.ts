import { GatewayError } from '../errors.js';
import type { Db } from '../db/index.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { linkUrl, signLink } from '../storage/signed-links.js';
import { fieldPath } from '../validation.js';
import type { ObjectStore } from '../storage/object-store.js';
import { FORWARD_TOTAL_BYTES, forwardedObject } from './forwarded.js';
import { findAsset } from './scope.js';

const REFERENCE = /^asset:\/\/(asset_[A-Za-z0-9]{20})$/;

function walk(
  value: unknown,
  path: (string | number)[],
  found: Array<{ path: (string | number)[]; ref: string }>,
): void {
  if (typeof value === 'string') {
    // A whole value that is a reference (text that merely mentions one is left alone).
    if (/^asset:\/\/\S+$/.test(value)) found.push({ path, ref: value });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      walk(v, [...path, i], found);
    });
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) walk(v, [...path, k], found);
  }
}

export interface ResolveContext {
  db: Db;
  storage: ObjectStore;
  linkSecret: Buffer;
  /** The origin the upstream can fetch links from (PUBLIC_BASE_URL in production). */
  baseUrl: string;
  /** How long the links must last (a task's submission may be retried for a while). */
  ttlMs: number;
  now: number;
}

/**
 * Every `asset://<id>` string in a request, wherever it stands, checked against the key's scope and
 * replaced with a short-lived signed link the upstream can fetch: the upstream never sees
 * `asset://`. A key with asset_access `none` may not reference any (403 `asset_access_denied`); an
 * asset outside the scope answers exactly like a missing one (400 `reference_asset_unavailable`).
 */
export async function resolveAssetReferences<T>(ctx: ResolveContext, key: ApiKeyContext, request: T): Promise<T> {
  const found: Array<{ path: (string | number)[]; ref: string }> = [];
  walk(request, [], found);
  if (found.length === 0) return request;
  const resolved = structuredClone(request) as T;
  let total = 0;
  for (const { path, ref } of found) {
    const param = fieldPath(path);
    if (key.assetAccess === 'none')
      throw new GatewayError('asset_access_denied', 403, 'this key may not reference assets', { param });
    const id = REFERENCE.exec(ref)?.[1];
    const asset = id ? await findAsset(ctx.db, key, key.userId, id) : undefined;
    if (!asset)
      throw new GatewayError('reference_asset_unavailable', 400, `the referenced asset is not available: ${ref}`, {
        param,
      });
    // A model gets at most 10 MiB an image (a derivative of a larger original) and 20 MiB a request.
    const forwarded = await forwardedObject(ctx.storage, asset);
    total += forwarded.size;
    if (total > FORWARD_TOTAL_BYTES) {
      throw new GatewayError(
        'invalid_request',
        400,
        `the referenced images exceed ${FORWARD_TOTAL_BYTES / 1024 / 1024} MiB together at ${ref}`,
        { param },
      );
    }
    const token = signLink(
      {
        objectKey: forwarded.objectKey,
        userId: asset.user_id,
        expiresAt: ctx.now + ctx.ttlMs,
        filename: asset.filename,
        contentType: forwarded.contentType,
      },
      ctx.linkSecret,
    );
    let target = resolved as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) target = target[step] as Record<string | number, unknown>;
    target[path.at(-1)!] = linkUrl(ctx.baseUrl, token);
  }
  return resolved;
}
