import { reserveSchema } from '../../assets/reserve-upload.js';
import type { RouteDoc } from '../route-doc.js';

export const assetRoutes: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/assets',
    tag: 'Assets',
    summary:
      'Reserve an upload: a short-lived storage URL (15 min) bound to size and type, and the headers the PUT must carry',
    auth: 'apiKey',
    body: reserveSchema,
    responses: { 200: '{upload_id, upload_url, method, headers, expires_at}', 413: 'asset_too_large' },
  },
  {
    method: 'put',
    path: '/v1/uploads/{token}',
    tag: 'Assets',
    summary:
      "The local driver's storage URL: the file bytes, without the API key; usable until the upload is completed",
    auth: 'none',
    responses: {
      200: '{upload_id, size_bytes}',
      400: 'upload_mismatch',
      404: 'a forged or expired URL',
      409: 'conflict: the upload is already completed',
    },
  },
  {
    method: 'post',
    path: '/v1/assets/uploads/{uploadId}/complete',
    tag: 'Assets',
    summary: 'Confirm an upload (verified: size, sha256, JPEG/PNG/WebP, ≤ 40 MP, whole); idempotent',
    auth: 'apiKey',
    responses: {
      200: 'the asset',
      400: 'unsupported_media_type, invalid_image or upload_mismatch',
      409: 'upload_incomplete',
    },
  },
  {
    method: 'get',
    path: '/v1/assets',
    tag: 'Assets',
    summary: "The assets in the key's scope, newest first (cursor paging)",
    auth: 'apiKey',
  },
  { method: 'get', path: '/v1/assets/{id}', tag: 'Assets', summary: 'One asset', auth: 'apiKey' },
  {
    method: 'get',
    path: '/v1/assets/{id}/content',
    tag: 'Assets',
    summary: 'A download link valid 15 minutes, owner-scoped: use it at once, never store or share it',
    auth: 'apiKey',
  },
  {
    method: 'delete',
    path: '/v1/assets/{id}',
    tag: 'Assets',
    summary: 'Delete an asset and its object',
    auth: 'apiKey',
    responses: { 204: 'deleted' },
  },
  // The console's copy of the sequence: uploads there count as "uploaded in the console".
  {
    method: 'post',
    path: '/api/v1/assets',
    tag: 'Console: assets',
    summary: 'Reserve an upload from the console (the same sequence, the console envelope)',
    auth: 'session',
    body: reserveSchema,
  },
  {
    method: 'post',
    path: '/api/v1/assets/uploads/{uploadId}/complete',
    tag: 'Console: assets',
    summary: 'Confirm a console upload',
    auth: 'session',
  },
  {
    method: 'get',
    path: '/api/v1/assets',
    tag: 'Console: assets',
    summary: 'Every asset of the account',
    auth: 'session',
  },
  { method: 'get', path: '/api/v1/assets/{id}', tag: 'Console: assets', summary: 'One asset', auth: 'session' },
  {
    method: 'get',
    path: '/api/v1/assets/{id}/content',
    tag: 'Console: assets',
    summary: 'A 15-minute download link',
    auth: 'session',
  },
  {
    method: 'delete',
    path: '/api/v1/assets/{id}',
    tag: 'Console: assets',
    summary: 'Delete an asset',
    auth: 'session',
    responses: { 204: 'deleted' },
  },
];
