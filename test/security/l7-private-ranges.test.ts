// L7 end to end: a URL whose host is, or resolves to, one of the forms that route to private space
// (test/security/l7-private-ranges.unit.test.ts) is refused before any connection, both by the safe
// fetcher itself and by a running gateway fetching a client's image URL for a generateContent upstream.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeFetch } from '../../shared/assets/safe-fetch.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { surfacesCatalog } from '../surfaces/catalog.js';

// IPv4-compatible, IPv4-translated, 6to4, local-use NAT64, site-local, Teredo (each embedding or
// standing for 127.0.0.1 where the form has room for it), and the 6to4 relay anycast.
const FORMS = [
  '::127.0.0.1',
  '::ffff:0:127.0.0.1',
  '2002:7f00:1::1',
  '64:ff9b:1::7f00:1',
  'fec0::1',
  '2001:0:4136:e378:8000:63bf:80ff:fffe',
  '192.88.99.1',
];
const literal = (ip: string, port: number) => `https://${ip.includes(':') ? `[${ip}]` : ip}:${port}/image.png`;

let victim: Server;
let port: number;
let connections = 0;
let gw: TestGateway;

beforeAll(async () => {
  victim = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end('internal secret');
  });
  victim.on('connection', () => connections++);
  port = await new Promise<number>((resolve) =>
    victim.listen(0, '127.0.0.1', () => resolve((victim.address() as AddressInfo).port)),
  );
  gw = await startTestGateway({ catalog: surfacesCatalog });
});
afterAll(async () => {
  await gw?.close();
  victim.closeAllConnections();
  await new Promise((r) => victim.close(r));
});

describe('addresses that route to private space', () => {
  it('are refused by the safe fetcher, as URL literals and as DNS answers, before any connection', async () => {
    const options = { maxBytes: 1_000_000, timeoutMs: 3_000, accept: ['image/'], allowHttp: true };
    for (const ip of FORMS) {
      await expect(safeFetch(literal(ip, port), options), ip).rejects.toMatchObject({ code: 'reference_url_blocked' });
      await expect(
        safeFetch(`http://images.example.test:${port}/image.png`, { ...options, lookup: async () => [ip] }),
        ip,
      ).rejects.toMatchObject({ code: 'reference_url_blocked' });
    }
    expect(connections).toBe(0);
  });

  it('are refused by a running gateway asked to fetch an image URL: 400 naming the field, nothing fetched', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    for (const ip of FORMS) {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${acct.key}` },
        body: JSON.stringify({
          model: 'gemini-sim',
          max_tokens: 5,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what is this?' },
                { type: 'image_url', image_url: { url: literal(ip, port) } },
              ],
            },
          ],
        }),
      });
      const body = (await res.json()) as { error: { code: string; param: string } };
      expect(res.status, ip).toBe(400);
      expect(body.error.code, ip).toBe('reference_url_blocked');
      expect(body.error.param, ip).toMatch(/^messages\[0\]\.content\[1\]/);
    }
    expect(gw.sim.stats().requests).toBe(0);
    expect(connections).toBe(0);
  });
});
