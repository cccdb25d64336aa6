import type Router from '@koa/router';
import { apiRouter } from '../http/router.js';
import type { Middleware } from 'koa';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { keySurface, type AssetSurface } from './asset-surface.js';
import { completeUpload } from './complete-upload.js';
import { putUpload } from './put-upload.js';
import { assetContent, deleteAsset, getAsset, listAssets } from './read-assets.js';
import { reserveUpload } from './reserve-upload.js';

/** The asset routes of one surface (the gateway's, by key; the console's, by session). */
export function assetRoutes(
  router: Router,
  services: GatewayServices,
  surface: AssetSurface,
  ...before: Middleware[]
): void {
  router.post('/assets', ...before, reserveUpload(services, surface));
  router.get('/assets', ...before, listAssets(services, surface));
  router.post('/assets/uploads/:uploadId/complete', ...before, completeUpload(services, surface));
  router.get('/assets/:id', ...before, getAsset(services, surface));
  router.get('/assets/:id/content', ...before, assetContent(services, surface));
  router.delete('/assets/:id', ...before, deleteAsset(services, surface));
}

/** Private assets under /v1: the upload sequence (reserve → PUT → complete) and reads. */
export function assetRouter(services: GatewayServices): Router {
  const router = apiRouter('/v1');
  assetRoutes(router, services, keySurface(services));
  router.put('/uploads/:token', putUpload(services));
  return router;
}
