import { expect } from 'vitest';
import type { TestGateway } from './gateway.js';
import type { Json } from './limits.js';

export interface UploadedAsset {
  id: string;
  reference: string;
  size_bytes: number;
}

/** The upload sequence of the spec with an API key: reserve, PUT to the storage URL (without the key), complete. */
export async function uploadAsset(
  gw: TestGateway,
  key: string,
  bytes: Buffer,
  contentType = 'image/png',
): Promise<UploadedAsset> {
  const post = async (path: string, body?: unknown) => {
    const res = await fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Json;
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  };
  const reserved = await post('/v1/assets', {
    filename: 'ref.png',
    content_type: contentType,
    size_bytes: bytes.length,
  });
  const put = await fetch(reserved.upload_url, { method: 'PUT', headers: reserved.headers, body: bytes });
  expect(put.status).toBe(200);
  return (await post(`/v1/assets/uploads/${reserved.upload_id}/complete`)) as UploadedAsset;
}
