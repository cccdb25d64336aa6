import type Router from '@koa/router';
import { apiRouter } from './http/router.js';
import { sql } from 'kysely';
import type { GatewayServices } from '../shared/gateway/services.js';
import { usageLookupPage, usageLookupScript, usageLookupStyle } from './usage/usage-lookup-page.js';

/** Health probes and the pages served without an API prefix. Readiness: Postgres and Redis answer. */
export function siteRouter(services: GatewayServices): Router {
  const router = apiRouter();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [db, redis] = await Promise.all([
      sql`SELECT 1`.execute(services.db).then(
        () => true,
        () => false,
      ),
      services.redis.ping().then(
        () => true,
        () => false,
      ),
    ]);
    ctx.status = db && redis ? 200 : 503;
    ctx.body = { status: db && redis ? 'ok' : 'unavailable', postgres: db, redis };
  });
  router.get('/usage-lookup', usageLookupPage);
  router.get('/usage-lookup.js', usageLookupScript);
  router.get('/usage-lookup.css', usageLookupStyle);
  return router;
}
