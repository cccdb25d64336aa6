import { FORWARD_MAX_BYTES } from './forwarded.js';
import { safeFetch } from './safe-fetch.js';
import { GatewayError, isGatewayError } from '../errors.js';

/**
 * An image URL fetched for a generateContent upstream, which reads only inline images and its own
 * file URIs (PROTOCOLS.md §6.12): through the safe fetcher (https, public addresses only, at most
 * 10 MiB, images only). A refusal answers 400 naming the field.
 */
export async function fetchInlineImage(url: string, field: string): Promise<{ mediaType: string; data: string }> {
  const fetched = await safeFetch(url, { maxBytes: FORWARD_MAX_BYTES, timeoutMs: 15_000, accept: ['image/'] }).catch((err: unknown) => {
    throw isGatewayError(err) ? new GatewayError(err.code, err.status, err.message, { param: field }) : err;
  });
  return { mediaType: fetched.contentType.split(';')[0]!.trim(), data: fetched.bytes.toString('base64') };
}
