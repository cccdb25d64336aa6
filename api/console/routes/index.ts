import type { RouteGroup } from '../../routes/route.js';
import { jsonBodiesOnly } from '../body.js';
import { consoleOriginGuard } from '../origin-guard.js';
import { checkSessionCredentialHeader } from '../sign-in-credential.js';
import { refuseApiKeys, requireSession } from '../session.js';
import { accountRoutes } from './account.js';
import { consoleAssetRoutes } from './assets.js';
import { authRoutes } from './auth.js';
import { identityRoutes } from './identity.js';
import { keyRoutes } from './keys.js';
import { routingRoutes } from './routing.js';
import { webhookRoutes } from './webhooks.js';

/** The console API under /api/v1 (session credential; API keys are refused on every route). */
export const consoleRoutes: RouteGroup = {
  name: 'console',
  prefix: '/api/v1',
  // Before every route: a console route never runs for a foreign Origin, a non-JSON body or a
  // wrong X-Console-Session (refused before a sign-in spends its code or ticket).
  before: (services) => [consoleOriginGuard(services), jsonBodiesOnly, refuseApiKeys, checkSessionCredentialHeader],
  authenticate: { session: requireSession },
  routes: [
    ...consoleAssetRoutes,
    ...authRoutes,
    ...identityRoutes,
    ...keyRoutes,
    ...accountRoutes,
    ...routingRoutes,
    ...webhookRoutes,
  ],
};
