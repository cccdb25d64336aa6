import type { ObjectStore } from './object-store.js';

/**
 * The origin browsers PUT uploads to when the store hands out presigned URLs (S3), for the console
 * site's CSP `connect-src`; undefined when uploads go through the gateway (the local driver).
 * Read from a URL the store itself signs, so path style, virtual hosts and custom endpoints all
 * come out exactly as the upload URLs will (signing is local: nothing is sent).
 */
export async function directUploadOrigin(store: ObjectStore): Promise<string | undefined> {
  try {
    const put = await store.presignPut('console/csp-probe', {
      contentType: 'application/octet-stream',
      expiresInSeconds: 60,
    });
    return put ? new URL(put.url).origin : undefined;
  } catch {
    // No credentials to sign with yet: uploads cannot be presigned either, so nothing to allow.
    return undefined;
  }
}
