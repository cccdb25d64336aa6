import Router from '@koa/router';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { completeUpload } from './complete-upload.js';
import { putUpload } from './put-upload.js';
import { assetContent, deleteAsset, getAsset, listAssets } from './read-assets.js';
import { reserveUpload } from './reserve-upload.js';

/** Private assets under /v1: the upload sequence (reserve → PUT → complete) and reads. */
export function assetRouter(services: GatewayServices): Router {
  const router = new Router({ prefix: '/v1' });
  router.post('/assets', reserveUpload(services));
  router.get('/assets', listAssets(services));
  router.post('/assets/uploads/:uploadId/complete', completeUpload(services));
  router.get('/assets/:id', getAsset(services));
  router.get('/assets/:id/content', assetContent(services));
  router.delete('/assets/:id', deleteAsset(services));
  router.put('/uploads/:token', putUpload(services));
  return router;
}
