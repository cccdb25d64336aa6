import type { Middleware } from 'koa';
import { refuseNulInUrl } from '../../shared/refuse-nul.js';

/** A `%00` in the path or query is refused before any route reads it (shared/refuse-nul.ts). */
export const refuseNulUrl: Middleware = (ctx, next) => {
  refuseNulInUrl(ctx.url);
  return next();
};
