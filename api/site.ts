import type { Middleware } from 'koa';
import { sql } from 'kysely';
import type { GatewayServices } from '../shared/gateway/services.js';

/** Liveness: the process answers. */
export const liveness: Middleware = (ctx) => {
  ctx.body = { status: 'ok' };
};

/** Readiness: Postgres and Redis answer. */
export function readiness(services: GatewayServices): Middleware {
  return async (ctx) => {
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
  };
}
