import type { Redis } from 'ioredis';
import type { Catalog } from '../catalog/index.js';
import { insertKey, updateUserKey } from '../db/api-keys.js';
import type { Db } from '../db/index.js';
import type { ApiKeyRow } from '../db/schema.js';
import { badRequest } from '../errors.js';
import { publishKeyChange } from './key-cache.js';
import { keyColumns, type KeyCreate, type KeyUpdate } from './key-settings.js';
import { generateKeySecret, importedKeySecret } from './secret.js';

export interface KeyAdmin {
  db: Db;
  redis: Redis;
  /** The Redis channel that invalidates cached keys on every process. */
  channel: string;
  catalog?: Catalog | undefined;
  /** The response cache: a revoked key's cached answers are purged with it. */
  cache?: { purgeKey(keyId: string): Promise<number> } | undefined;
}

function checkGroup(admin: KeyAdmin, group: string | undefined): void {
  if (group !== undefined && admin.catalog && !admin.catalog.groups.has(group))
    throw badRequest(`unknown group '${group}'`, 'group');
}

/** Creates a key; the full secret is returned here and never again. */
export async function createKey(
  admin: KeyAdmin,
  userId: string,
  s: KeyCreate,
  imported?: string,
): Promise<{ row: ApiKeyRow; key: string }> {
  checkGroup(admin, s.group);
  if (s.expires_at && new Date(s.expires_at).getTime() <= Date.now())
    throw badRequest('must be in the future', 'expires_at');
  const secret = imported === undefined ? generateKeySecret(s.kind) : importedKeySecret(imported);
  const row = await insertKey(admin.db, {
    ...keyColumns(s),
    user_id: userId,
    key_hash: secret.hash,
    prefix: secret.prefix,
    last4: secret.last4,
    compatibility_profile: s.compatibility_profile ?? 'standard_v1',
  });
  return { row, key: secret.key };
}

/** Updates the given fields only; the compatibility profile cannot change (create a new key instead). */
export async function updateKey(
  admin: KeyAdmin,
  userId: string,
  keyId: string,
  s: KeyUpdate,
): Promise<ApiKeyRow | undefined> {
  if (s.compatibility_profile !== undefined) {
    throw badRequest('compatibility_profile is immutable: create a new key to change it', 'compatibility_profile');
  }
  checkGroup(admin, s.group);
  const row = await updateUserKey(admin.db, userId, keyId, keyColumns(s));
  if (row) await publishKeyChange(admin.redis, admin.channel, row.id);
  return row;
}

export async function setKeyStatus(
  admin: KeyAdmin,
  userId: string,
  keyId: string,
  status: 'disabled' | 'revoked' | 'active',
) {
  const row = await updateUserKey(admin.db, userId, keyId, {
    status,
    ...(status === 'revoked' ? { revoked_at: new Date() } : {}),
  });
  if (row) await publishKeyChange(admin.redis, admin.channel, row.id);
  if (row && status === 'revoked') await admin.cache?.purgeKey(row.id);
  return row;
}
