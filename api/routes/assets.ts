import { keySurface } from '../assets/asset-surface.js';
import { completeUpload } from '../assets/complete-upload.js';
import { putUpload } from '../assets/put-upload.js';
import { assetContent, deleteAsset, getAsset, listAssets } from '../assets/read-assets.js';
import { reserveSchema, reserveUpload } from '../assets/reserve-upload.js';
import type { RouteGroup } from './route.js';
import { KEY_ASSET_RESPONSES } from '../assets/responses.js';
import { KEY_ASSET_EXAMPLES } from './examples/assets.js';

/** Private assets under /v1: the upload sequence (reserve → PUT → complete) and reads, by key. */
export const assetRoutes: RouteGroup = {
  name: 'assets',
  prefix: '/v1',
  routes: [
    {
      method: 'post',
      path: '/v1/assets',
      tag: 'Assets',
      summary:
        'Reserve an upload: a short-lived storage URL (15 min) bound to size and type, and the headers the PUT must carry',
      auth: 'apiKey',
      response: KEY_ASSET_RESPONSES.reserved,
      examples: KEY_ASSET_EXAMPLES.reserve,
      body: reserveSchema,
      responses: { 200: '{upload_id, upload_url, method, headers, expires_at}', 413: 'asset_too_large' },
      handler: (services) => reserveUpload(services, keySurface(services)),
    },
    {
      method: 'get',
      path: '/v1/assets',
      tag: 'Assets',
      summary: "The assets in the key's scope, newest first (cursor paging)",
      auth: 'apiKey',
      response: KEY_ASSET_RESPONSES.list,
      examples: KEY_ASSET_EXAMPLES.list,
      handler: (services) => listAssets(services, keySurface(services)),
    },
    {
      method: 'post',
      path: '/v1/assets/uploads/:uploadId/complete',
      tag: 'Assets',
      summary: 'Confirm an upload (verified: size, sha256, JPEG/PNG/WebP, ≤ 40 MP, whole); idempotent',
      auth: 'apiKey',
      response: KEY_ASSET_RESPONSES.one,
      examples: KEY_ASSET_EXAMPLES.one,
      responses: {
        200: 'the asset',
        400: 'unsupported_media_type, invalid_image or upload_mismatch',
        409: 'upload_incomplete',
      },
      handler: (services) => completeUpload(services, keySurface(services)),
    },
    {
      method: 'get',
      path: '/v1/assets/:id',
      tag: 'Assets',
      summary: 'One asset',
      auth: 'apiKey',
      response: KEY_ASSET_RESPONSES.one,
      examples: KEY_ASSET_EXAMPLES.one,
      handler: (services) => getAsset(services, keySurface(services)),
    },
    {
      method: 'get',
      path: '/v1/assets/:id/content',
      tag: 'Assets',
      summary: 'A download link valid 15 minutes, owner-scoped: use it at once, never store or share it',
      auth: 'apiKey',
      response: KEY_ASSET_RESPONSES.link,
      examples: KEY_ASSET_EXAMPLES.link,
      handler: (services) => assetContent(services, keySurface(services)),
    },
    {
      method: 'delete',
      path: '/v1/assets/:id',
      tag: 'Assets',
      summary: 'Delete an asset and its object',
      auth: 'apiKey',
      responses: { 204: 'deleted' },
      handler: (services) => deleteAsset(services, keySurface(services)),
    },
    {
      method: 'put',
      path: '/v1/uploads/:token',
      tag: 'Assets',
      summary:
        "The local driver's storage URL: the file bytes, without the API key; usable until the upload is completed",
      auth: 'none',
      response: KEY_ASSET_RESPONSES.stored,
      examples: KEY_ASSET_EXAMPLES.stored,
      responses: {
        200: '{upload_id, size_bytes}',
        400: 'upload_mismatch',
        404: 'a forged or expired URL',
        409: 'conflict: the upload is already completed',
      },
      rawBody: {
        media: 'image/png',
        schema: {
          type: 'string',
          format: 'binary',
          description: 'The bytes, with exactly the headers the reservation named (its `content-type`; as many bytes)',
        },
      },
      handler: putUpload,
    },
  ],
};
