import { consoleRoutes } from '../console/routes/index.js';
import { assetRoutes } from './assets.js';
import { fileRoutes } from './files.js';
import { contentRoutes, messagesRoutes } from './native.js';
import { openAiRoutes } from './openai.js';
import { privateRoutes } from './private.js';
import type { Route, RouteGroup } from './route.js';
import { siteRoutes } from './site.js';
import { taskRoutes } from './tasks.js';

/**
 * Every route of the API, each declared once: the fast table (api/http/route-table.ts), the Koa
 * routers (api/http/router.ts) and the OpenAPI document (api/openapi/document.ts) are built from
 * this list. Groups are tried in this order, and the routes of a group in theirs.
 */
export const ROUTE_GROUPS: readonly RouteGroup[] = [
  siteRoutes,
  openAiRoutes,
  messagesRoutes,
  contentRoutes,
  taskRoutes,
  fileRoutes,
  privateRoutes,
  assetRoutes,
  consoleRoutes,
];

export const ROUTES: readonly Route[] = ROUTE_GROUPS.flatMap((group) => group.routes);
