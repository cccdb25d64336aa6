import { GatewayError } from '../errors.js';

/** The longest an answer may stay cached: 30 days, wherever the TTL is set. */
export const MAX_CACHE_TTL_SECONDS = 30 * 24 * 3600;

export const CACHE_TTL_HEADER = 'X-Service-Cache-TTL';

const badTtl = (value: string) =>
  new GatewayError(
    'invalid_request',
    400,
    `invalid value for header '${CACHE_TTL_HEADER}': '${value}' is not a whole number of seconds from 0 to ${MAX_CACHE_TTL_SECONDS} (0 bypasses the cache)`,
    { param: CACHE_TTL_HEADER },
  );

/**
 * `X-Service-Cache-TTL: <seconds>`: undefined when absent; 0 bypasses the cache. Anything but a
 * whole number from 0 to 30 days is a 400 naming the header (never silently ignored).
 */
export function parseCacheTtlHeader(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^\d{1,8}$/.test(trimmed)) throw badTtl(value);
  const seconds = Number(trimmed);
  if (seconds > MAX_CACHE_TTL_SECONDS) throw badTtl(value);
  return seconds;
}

/** Where the call's cache TTL comes from: the header wins over the preset, the preset over the key; unset everywhere = off. */
export function cacheTtlOf(
  header: number | undefined,
  preset: number | null | undefined,
  key: number | null | undefined,
): number {
  return header ?? preset ?? key ?? 0;
}
