import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { GatewayError } from '../errors.js';

// Private, loopback, link-local (cloud metadata), CGNAT, multicast, documentation and reserved ranges.
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64]] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:127.0.0.1` or `::ffff:7f00:1`). */
function mappedV4(ip: string): string | undefined {
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (dotted) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (!hex) return undefined;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether the gateway may connect to this address on a client's behalf. */
export function isPublicAddress(ip: string): boolean {
  const v4 = isIP(ip) === 6 ? mappedV4(ip) : ip;
  if (v4 && isIP(v4) === 4) return !BLOCKED.check(v4, 'ipv4');
  return isIP(ip) === 6 && !BLOCKED.check(ip, 'ipv6');
}

export interface SafeFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Redirects followed, each checked like the first URL. Default 3. */
  maxRedirects?: number;
  /** Content types accepted (prefix match, e.g. `image/`). */
  accept: string[];
  /** Tests: a resolver of their own, plain http, and addresses to treat as public. */
  lookup?: (host: string) => Promise<string[]>;
  allowHttp?: boolean;
  trusted?: readonly string[];
}

const blocked = (message: string) => new GatewayError('reference_url_blocked', 400, message);
const failed = (message: string) => new GatewayError('reference_fetch_failed', 400, message);

/**
 * The one way the gateway fetches an external URL for a client: https only; the host resolved
 * once, every address checked, and the connection pinned to the checked address (no second DNS
 * answer can point it elsewhere); every redirect checked the same way; size, time and content
 * type capped. A refused address never receives a connection.
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<{ bytes: Buffer; contentType: string; url: string }> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let current = url;
  for (let hop = 0; hop <= (options.maxRedirects ?? 3); hop++) {
    let parsed: URL;
    try {
      parsed = new URL(current);
    } catch {
      throw blocked('not a URL');
    }
    if (parsed.protocol !== 'https:' && !(options.allowHttp && parsed.protocol === 'http:')) throw blocked('only https URLs are fetched');
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : await (options.lookup ?? ((h: string) => dnsLookup(h, { all: true }).then((r) => r.map((a) => a.address))))(host).catch(() => {
      throw failed(`${host} does not resolve`);
    });
    const allowed = (ip: string) => options.trusted?.includes(ip) || isPublicAddress(ip);
    if (addresses.length === 0 || !addresses.every(allowed)) throw blocked(`${host} resolves to an address the gateway does not connect to`);
    const pinned = addresses[0]!;
    const agent = new Agent({
      connect: {
        lookup: ((_hostname: string, opts: { all?: boolean }, cb: (err: null, address: unknown, family?: number) => void) =>
          opts.all ? cb(null, [{ address: pinned, family: isIP(pinned) }]) : cb(null, pinned, isIP(pinned))) as unknown as LookupFunction,
      },
    });
    try {
      const res = await request(parsed, { dispatcher: agent, method: 'GET', signal, headers: { accept: options.accept.join(', ') } }).catch((err: Error) => {
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
      const contentType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!options.accept.some((a) => contentType.startsWith(a))) {
        await res.body.dump();
        throw failed(`${host} answered ${contentType || 'no content type'}, not ${options.accept.join(' or ')}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > options.maxBytes) {
          res.body.destroy();
          throw failed(`${host} sent more than ${options.maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return { bytes: Buffer.concat(chunks), contentType, url: current };
    } finally {
      await agent.close().catch(() => undefined);
    }
  }
  throw blocked(`more than ${options.maxRedirects ?? 3} redirects`);
}
