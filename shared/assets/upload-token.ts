import { createHmac, timingSafeEqual } from 'node:crypto';

// Its own context: a download link can never be replayed as an upload URL, nor the reverse.
const CONTEXT = 'gateway-asset-upload-v1\n';

export interface UploadClaims {
  uploadId: string;
  objectKey: string;
  contentType: string;
  sizeBytes: number;
  /** Epoch ms. */
  expiresAt: number;
}

function mac(payload: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(CONTEXT).update(payload).digest();
}

/** The token of the local driver's upload URL (`PUT /v1/uploads/{token}`), bound to size and type. */
export function signUpload(claims: UploadClaims, secret: Buffer): string {
  const payload = Buffer.from(
    JSON.stringify([claims.uploadId, claims.objectKey, claims.contentType, claims.sizeBytes, claims.expiresAt]),
  ).toString('base64url');
  return `${payload}.${mac(payload, secret).toString('base64url')}`;
}

/** The claims of a valid, unexpired token; undefined otherwise (compared in constant time). */
export function verifyUpload(token: string, secret: Buffer, now: number): UploadClaims | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(payload, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const [uploadId, objectKey, contentType, sizeBytes, expiresAt] = JSON.parse(
      Buffer.from(payload, 'base64url').toString('utf8'),
    ) as [string, string, string, number, number];
    if (expiresAt <= now) return undefined;
    return { uploadId, objectKey, contentType, sizeBytes, expiresAt };
  } catch {
    return undefined;
  }
}
