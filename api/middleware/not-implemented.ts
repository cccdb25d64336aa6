import type { Middleware } from 'koa';
import { GatewayError } from '../../shared/errors.js';

// The spec's "not implemented" (audio, realtime, batch, multipart image edits) and the OpenAI-style
// routes not built yet; and anything under the native prefixes that no route serves.
const NOT_BUILT = [
  /^\/v1\/audio(\/|$)/,
  /^\/v1\/realtime(\/|$)/,
  /^\/v1\/(fine_tuning|assistants|threads|vector_stores)(\/|$)/,
  /^\/v1\/images\/variations$/,
  /^\/v1\/responses\/.+/,
  /^\/native-messages(\/|$)/,
  /^\/native-content(\/|$)/,
  /^\/v1beta(\/|$)/,
];

/**
 * Runs after every router: a request nothing matched under one of these paths answers 501
 * `not_implemented` (in the protocol of its prefix, by the error boundary), not 404.
 */
export const notImplemented: Middleware = async (ctx, next) => {
  await next();
  if (ctx.status !== 404 || ctx.body !== undefined || ctx.respond === false) return;
  if (NOT_BUILT.some((re) => re.test(ctx.path)))
    throw new GatewayError('not_implemented', 501, `${ctx.method} ${ctx.path} is not implemented by this gateway`);
};
