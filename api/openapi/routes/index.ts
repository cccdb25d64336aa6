import type { RouteDoc } from '../route-doc.js';
import { assetRoutes } from './assets.js';
import { consoleRoutes } from './console.js';
import { gatewayRoutes } from './gateway.js';
import { nativeRoutes } from './native.js';
import { privateRoutes } from './private.js';
import { siteRoutes } from './site.js';
import { taskRoutes } from './tasks.js';

/** Every route the gateway serves; a test checks this list against the registered routers. */
export const documentedRoutes: RouteDoc[] = [
  ...gatewayRoutes,
  ...nativeRoutes,
  ...privateRoutes,
  ...taskRoutes,
  ...assetRoutes,
  ...consoleRoutes,
  ...siteRoutes,
];
