import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { GatewayError, isGatewayError } from '../errors.js';

// IPv4: private, loopback, link-local (cloud metadata), CGNAT, multicast, documentation, benchmarking,
// the 6to4 relay anycast (192.88.99.0/24, which forwards to whatever IPv6 host) and reserved ranges.
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
// IPv6: only global unicast (2000::/3) can be public. That leaves out, among the rest, every form
// that embeds an IPv4 address a gateway or tunnel would deliver to (IPv4-compatible ::/96,
// IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and the local-use 64:ff9b:1::/48), unique and
// link- or site-local addresses (fc00::/7, fe80::/10, fec0::/10) and multicast. Inside 2000::/3:
// Teredo and the other IETF protocol assignments (2001::/23), 6to4 (2002::/16) and documentation.
// IPv4-mapped addresses (::ffff:a.b.c.d) are the IPv4 address itself: BlockList judges them by the
// IPv4 rules.
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');
for (const [net, prefix] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');
const MAPPED = new BlockList();
MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

function isLoopback(ip: string): boolean {
  return LOOPBACK.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/** Whether the gateway may connect to this address on a client's behalf. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !BLOCKED.check(ip, 'ipv4');
  if (family !== 6) return false;
  if (MAPPED.check(ip, 'ipv6')) return !BLOCKED.check(ip, 'ipv6');
  return GLOBAL_UNICAST.check(ip, 'ipv6') && !BLOCKED.check(ip, 'ipv6');
}

export interface SafeFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Redirects followed, each checked like the first URL. Default 3. */
  maxRedirects?: number;
  /** Content types accepted (prefix match, e.g. `image/`); absent: any. */
  accept?: string[];
  /** Tests: a resolver of their own, plain http, and addresses to treat as public. */
  lookup?: (host: string) => Promise<string[]>;
  allowHttp?: boolean;
  trusted?: readonly string[];
  /** Development only (WEBHOOK_ALLOW_INSECURE_URLS): loopback addresses are allowed too. */
  allowLoopback?: boolean;
}

export interface SafeStream {
  /** Fails with `reference_fetch_failed` past `maxBytes` or `timeoutMs`. */
  body: Readable;
  contentType: string;
  /** The declared Content-Length, when there is one. */
  size: number | undefined;
  /** Where the body came from, redirects followed. */
  url: string;
}

const blocked = (message: string) => new GatewayError('reference_url_blocked', 400, message);
const failed = (message: string) => new GatewayError('reference_fetch_failed', 400, message);

/**
 * The one way the gateway fetches a URL it was handed (a client's, or a provider's link off its own
 * origin: shared/providers/tasks/http.ts): https only; the host resolved once, every address
 * checked, and the connection pinned to the checked address (no second DNS answer can point it
 * elsewhere); every redirect checked the same way; size, time and content type capped. A refused
 * address never receives a connection.
 */
export async function safeFetch(
  url: string,
  options: SafeFetchOptions,
): Promise<{ bytes: Buffer; contentType: string; url: string }> {
  const fetched = await safeStream(url, options);
  const chunks: Buffer[] = [];
  for await (const chunk of fetched.body) chunks.push(chunk as Buffer);
  return { bytes: Buffer.concat(chunks), contentType: fetched.contentType, url: fetched.url };
}

/** safeFetch with the body left to stream (large results): the same checks, the size cap applied as it arrives. */
export async function safeStream(url: string, options: SafeFetchOptions): Promise<SafeStream> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const accept = options.accept;
  let current = url;
  for (let hop = 0; hop <= (options.maxRedirects ?? 3); hop++) {
    let parsed: URL;
    try {
      parsed = new URL(current);
    } catch {
      throw blocked('not a URL');
    }
    const { host, agent } = await pinnedAgent(parsed, options);
    const close = () => agent.close().catch(() => undefined);
    let streaming = false;
    try {
      const res = await request(parsed, {
        dispatcher: agent,
        method: 'GET',
        signal,
        headers: { accept: accept?.join(', ') ?? '*/*' },
      }).catch((err: Error) => {
        throw failed(`fetching ${host} failed: ${err.message}`);
      });
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        await res.body.dump();
        current = new URL(String(res.headers.location), parsed).toString();
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw failed(`fetching ${host} answered ${res.statusCode}`);
      }
      const contentType = String(res.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (accept && !accept.some((a) => contentType.startsWith(a))) {
        await res.body.dump();
        throw failed(`${host} answered ${contentType || 'no content type'}, not ${accept.join(' or ')}`);
      }
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > options.maxBytes) {
        res.body.destroy();
        throw failed(`${host} sent more than ${options.maxBytes} bytes`);
      }
      streaming = true;
      return {
        body: capped(res.body, options.maxBytes, host, close),
        contentType,
        size: Number.isFinite(declared) ? declared : undefined,
        url: current,
      };
    } finally {
      if (!streaming) await close();
    }
  }
  throw blocked(`more than ${options.maxRedirects ?? 3} redirects`);
}

/**
 * Resolves the URL's host once and checks every address; the agent connects only to the first
 * (no second DNS answer can point it elsewhere). A refused address never receives a connection.
 */
async function pinnedAgent(
  parsed: URL,
  options: Omit<SafeFetchOptions, 'maxBytes' | 'timeoutMs'>,
): Promise<{ host: string; agent: Agent }> {
  if (parsed.protocol !== 'https:' && !(options.allowHttp && parsed.protocol === 'http:'))
    throw blocked('only https URLs are fetched');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [host]
    : await (options.lookup ?? ((h: string) => dnsLookup(h, { all: true }).then((r) => r.map((a) => a.address))))(
        host,
      ).catch(() => {
        throw failed(`${host} does not resolve`);
      });
  const allowed = (ip: string) =>
    options.trusted?.includes(ip) || isPublicAddress(ip) || (options.allowLoopback === true && isLoopback(ip));
  if (addresses.length === 0 || !addresses.every(allowed))
    throw blocked(`${host} resolves to an address the gateway does not connect to`);
  const pinned = addresses[0]!;
  const agent = new Agent({
    connect: {
      lookup: ((
        _hostname: string,
        opts: { all?: boolean },
        cb: (err: null, address: unknown, family?: number) => void,
      ) =>
        opts.all
          ? cb(null, [{ address: pinned, family: isIP(pinned) }])
          : cb(null, pinned, isIP(pinned))) as unknown as LookupFunction,
    },
  });
  return { host, agent };
}

/** The body, failing once it passes `maxBytes`; the pinned connection closes when it ends, fails or is dropped. */
function capped(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
  host: string,
  close: () => Promise<unknown>,
): Readable {
  async function* read(): AsyncGenerator<Buffer> {
    let size = 0;
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > maxBytes) throw failed(`${host} sent more than ${maxBytes} bytes`);
        yield chunk;
      }
    } catch (err) {
      throw isGatewayError(err) ? err : failed(`fetching ${host} failed: ${(err as Error).message}`);
    } finally {
      body.destroy();
      await close();
    }
  }
  return Readable.from(read(), { objectMode: false });
}

/** Throws `reference_url_blocked` when the URL's scheme or any address its host resolves to is refused (nothing is sent). */
export async function checkTarget(url: URL, options: Omit<SafeFetchOptions, 'maxBytes' | 'timeoutMs'>): Promise<void> {
  await (await pinnedAgent(url, options)).agent.close();
}

export interface SafePostOptions extends Omit<SafeFetchOptions, 'maxRedirects' | 'accept'> {
  body: string;
  headers: Record<string, string>;
}

/**
 * POSTs once to a URL checked and pinned as safeStream does (webhook deliveries). Any answer is
 * returned, a redirect included (never followed): the caller judges the status. At most `maxBytes`
 * of the answer's body are read, and a body cut short by the time limit keeps what arrived.
 * Throws `reference_url_blocked` or `reference_fetch_failed` when no answer came.
 */
export async function safePost(url: string, options: SafePostOptions): Promise<{ status: number; body: Buffer }> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw blocked('not a URL');
  }
  const { host, agent } = await pinnedAgent(parsed, options);
  try {
    const res = await request(parsed, {
      dispatcher: agent,
      method: 'POST',
      signal,
      headers: options.headers,
      body: options.body,
    }).catch((err: Error) => {
      throw failed(`posting to ${host} failed: ${err.message}`);
    });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        chunks.push(chunk.subarray(0, options.maxBytes - size));
        size += chunk.length;
        if (size >= options.maxBytes) break;
      }
    } catch {
      // The status already arrived; what the body had sent so far is enough for the record.
    }
    res.body.destroy();
    return { status: res.statusCode, body: Buffer.concat(chunks) };
  } finally {
    await agent.close().catch(() => undefined);
  }
}
