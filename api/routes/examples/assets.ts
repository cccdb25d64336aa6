import { AT, LATER, ORIGIN, one, page, SIGNED_LINK } from './common.js';

/**
 * Assets: the upload sequence (reserve → PUT → complete) and reads — bare under /v1 (an API key),
 * in the console's envelopes under /api/v1.
 */

const asset = {
  id: 'asset_Df33drcuvQK3aoUMvjQV',
  object: 'asset',
  reference: 'asset://asset_Df33drcuvQK3aoUMvjQV',
  filename: 'diagram.png',
  content_type: 'image/png',
  size_bytes: 48_213,
  width: 800,
  height: 600,
  sha256: 'b157bbe4217f5db291324f6efd1182a5a562982adf64cd3eed3b5b8be3dfd284',
  created_at: AT,
};
/** With the local storage driver the URL is the gateway's (`/v1/uploads/{token}`); with S3, a presigned one. */
const reserved = {
  upload_id: 'up_7fJzTyUTiBuvCrjIKdsX',
  upload_url: `${ORIGIN}/v1/uploads/WyJ1cF83…sig`,
  method: 'PUT',
  headers: { 'content-type': 'image/png' },
  expires_at: LATER,
};
const link = { url: SIGNED_LINK, expires_at: LATER };

export const KEY_ASSET_EXAMPLES = {
  reserve: { request: { filename: 'diagram.png', content_type: 'image/png', size_bytes: 48_213 }, response: reserved },
  one: { response: asset },
  list: { response: { object: 'list', data: [asset], has_more: false, next_cursor: null } },
  link: { response: link },
  stored: { response: { upload_id: reserved.upload_id, size_bytes: 48_213 } },
};

export const CONSOLE_ASSET_EXAMPLES = {
  reserve: { request: KEY_ASSET_EXAMPLES.reserve.request, response: one(reserved, 'req_6e3b90') },
  one: { response: one(asset, 'req_6e3b91') },
  page: { response: page(asset, 'req_6e3b92') },
  link: { response: one(link, 'req_6e3b93') },
};
