import Router from '@koa/router';
import { sql } from 'kysely';
import type { GatewayServices } from '../shared/gateway/services.js';

/** Liveness says the process serves; readiness says its Postgres and Redis answer. */
export function healthRouter(services: GatewayServices): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [db, redis] = await Promise.all([
      sql`SELECT 1`.execute(services.db).then(() => true, () => false),
      services.redis.ping().then(() => true, () => false),
    ]);
    ctx.status = db && redis ? 200 : 503;
    ctx.body = { status: db && redis ? 'ok' : 'unavailable', postgres: db, redis };
  });
  return router;
}
