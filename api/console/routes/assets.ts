import { consoleSurface } from '../../assets/asset-surface.js';
import { completeUpload } from '../../assets/complete-upload.js';
import { assetContent, deleteAsset, getAsset, listAssets } from '../../assets/read-assets.js';
import { reserveSchema, reserveUpload } from '../../assets/reserve-upload.js';
import type { Route } from '../../routes/route.js';
import { CONSOLE_ASSET_EXAMPLES } from '../../routes/examples/assets.js';
import { pageQuerySchema } from '../envelope.js';
import { CONSOLE_ASSET_RESPONSES } from '../../assets/responses.js';

/** The console's copy of the asset sequence: uploads here count as "uploaded in the console" (every key with `own` sees them). */
export const consoleAssetRoutes: Route[] = [
  {
    method: 'post',
    path: '/api/v1/assets',
    tag: 'Console: assets',
    summary: 'Reserve an upload from the console (the same sequence, the console envelope)',
    auth: 'session',
    response: CONSOLE_ASSET_RESPONSES.reserved,
    body: reserveSchema,
    examples: CONSOLE_ASSET_EXAMPLES.reserve,
    handler: (services) => reserveUpload(services, consoleSurface),
  },
  {
    method: 'post',
    path: '/api/v1/assets/uploads/:uploadId/complete',
    tag: 'Console: assets',
    summary: 'Confirm a console upload',
    auth: 'session',
    response: CONSOLE_ASSET_RESPONSES.one,
    examples: CONSOLE_ASSET_EXAMPLES.one,
    handler: (services) => completeUpload(services, consoleSurface),
  },
  {
    method: 'get',
    path: '/api/v1/assets',
    tag: 'Console: assets',
    summary: 'Every asset of the account, newest first (paginated envelope)',
    query: pageQuerySchema,
    auth: 'session',
    response: CONSOLE_ASSET_RESPONSES.page,
    examples: CONSOLE_ASSET_EXAMPLES.page,
    handler: (services) => listAssets(services, consoleSurface),
  },
  {
    method: 'get',
    path: '/api/v1/assets/:id',
    tag: 'Console: assets',
    summary: 'One asset',
    auth: 'session',
    response: CONSOLE_ASSET_RESPONSES.one,
    examples: CONSOLE_ASSET_EXAMPLES.one,
    handler: (services) => getAsset(services, consoleSurface),
  },
  {
    method: 'get',
    path: '/api/v1/assets/:id/content',
    tag: 'Console: assets',
    summary: 'A 15-minute download link',
    auth: 'session',
    response: CONSOLE_ASSET_RESPONSES.link,
    examples: CONSOLE_ASSET_EXAMPLES.link,
    handler: (services) => assetContent(services, consoleSurface),
  },
  {
    method: 'delete',
    path: '/api/v1/assets/:id',
    tag: 'Console: assets',
    summary: 'Delete an asset',
    auth: 'session',
    responses: { 204: 'deleted' },
    handler: (services) => deleteAsset(services, consoleSurface),
  },
];
