import { createLocalStore, type LocalStoreConfig } from './local-store.js';
import type { ObjectStore } from './object-store.js';
import { createS3Store, type S3StoreConfig } from './s3-store.js';

export type ObjectStoreConfig = S3StoreConfig | LocalStoreConfig;

/** The configured driver; call `ensureReady()` on it once at start. */
export function createObjectStore(config: ObjectStoreConfig): ObjectStore {
  return config.driver === 's3' ? createS3Store(config) : createLocalStore(config);
}

export type { LocalStoreConfig } from './local-store.js';
export type { S3StoreConfig } from './s3-store.js';
export * from './object-store.js';
export { signLink, verifyLink, linkUrl, type LinkClaims } from './signed-links.js';
export { serveObject, type ObjectResponse } from './serve-object.js';
export { loadOrCreateLinkSecret } from './link-secret.js';
