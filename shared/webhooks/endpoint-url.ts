import { checkTarget, type SafeFetchOptions } from '../assets/safe-fetch.js';
import { badRequest, isGatewayError } from '../errors.js';
import type { WebhookConfig } from './config.js';

// A name that does not answer in this long is taken as it is: the delivery checks it again anyway.
const RESOLVE_WAIT_MS = 3_000;
export const MAX_URL_LENGTH = 2_048;

/** How deliveries reach endpoints: https to public addresses, or with the development setting http and loopback too. */
export function addressPolicy(config: WebhookConfig): Pick<SafeFetchOptions, 'allowHttp' | 'allowLoopback'> {
  return { allowHttp: config.allowInsecureUrls, allowLoopback: config.allowInsecureUrls };
}

const refused = (why: string) => badRequest(`invalid value for 'url': ${why}`, 'url');

/**
 * Checks an endpoint URL when it is set (400 naming `url`): absolute, https (http only with
 * WEBHOOK_ALLOW_INSECURE_URLS), no credentials or fragment, and a host that does not resolve to a
 * private, loopback or otherwise non-public address. A name that does not resolve yet is accepted:
 * DNS may follow the endpoint; every delivery resolves and checks the host again, and connects
 * only to the address it checked.
 */
export async function checkEndpointUrl(raw: string, config: WebhookConfig): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('must be an absolute URL');
  }
  const schemes = config.allowInsecureUrls ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    throw refused(
      config.allowInsecureUrls ? 'must be an http(s) URL' : 'must be an https URL (WEBHOOK_ALLOW_INSECURE_URLS is off)',
    );
  if (url.username || url.password) throw refused('must not carry credentials');
  if (url.hash) throw refused('must not have a fragment');
  const host = url.hostname.toLowerCase();
  if (!config.allowInsecureUrls && (host === 'localhost' || host.endsWith('.localhost')))
    throw refused(`${host} is not a public address`);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), RESOLVE_WAIT_MS);
  });
  // The check settles to its error (or undefined), so a late failure after the wait is never unhandled.
  const checked = checkTarget(url, addressPolicy(config)).then(
    () => undefined,
    (err: unknown) => err,
  );
  const err = await Promise.race([checked, waited]);
  clearTimeout(timer);
  if (isGatewayError(err) && err.code === 'reference_url_blocked')
    throw refused(`${host} resolves to an address deliveries never go to (private, loopback or reserved)`);
  if (err !== undefined && !isGatewayError(err)) throw err;
  // Kept as given: the owner sees the URL they typed.
  return raw;
}
