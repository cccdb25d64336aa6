import type { Context } from 'koa';

/** Every URL the gateway hands out starts with PUBLIC_BASE_URL when set, else the request's origin. */
export function baseUrl(services: { config: { publicBaseUrl: string | undefined } }, ctx: Context): string {
  return services.config.publicBaseUrl ?? `${ctx.protocol}://${ctx.host}`;
}
