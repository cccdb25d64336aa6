import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, safeFetch, type SafeFetchOptions } from '../../shared/assets/safe-fetch.js';
import { pngOfSize } from '../support/images.js';

// Loopback listeners that count every connection: a refused target must see none.
let victim: Server;
let victimPort: number;
let victimConnections = 0;
let redirector: Server;
let redirectorPort: number;

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  victim = createServer((_req, res) => res.end('secret'));
  victim.on('connection', () => victimConnections++);
  victimPort = await listen(victim, '127.0.0.1');
  redirector = createServer((req, res) => {
    if (req.url === '/image') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(pngOfSize(100));
      return;
    }
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.alloc(5_000, 1));
      return;
    }
    if (req.url === '/html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>');
      return;
    }
    res.writeHead(302, { location: `http://127.0.0.1:${victimPort}/` });
    res.end();
  });
  redirectorPort = await listen(redirector, '127.0.0.2');
});
afterAll(async () => {
  victim.closeAllConnections();
  redirector.closeAllConnections();
  await Promise.all([new Promise((r) => victim.close(r)), new Promise((r) => redirector.close(r))]);
});

const base: SafeFetchOptions = { maxBytes: 1_000, timeoutMs: 3_000, accept: ['image/'] };
// Tests only: plain http, and 127.0.0.2 (the "allowed" host) treated as public.
const trusted: SafeFetchOptions = { ...base, allowHttp: true, trusted: ['127.0.0.2'] };

describe('the safe fetcher', () => {
  it('classifies addresses: private, loopback, link-local, metadata, CGNAT, multicast and mapped forms are not public', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(ip), ip).toBe(true);
  });

  it('refuses private targets by literal, by name and by redirect, and they see no connection', async () => {
    const before = victimConnections;
    const targets = [
      `https://127.0.0.1:${victimPort}/`,
      `https://[::1]:${victimPort}/`,
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/',
      `https://[::ffff:127.0.0.1]:${victimPort}/`,
      `https://localhost:${victimPort}/`,
      `http://127.0.0.1:${victimPort}/`,
    ];
    for (const url of targets)
      await expect(safeFetch(url, base), url).rejects.toMatchObject({ code: 'reference_url_blocked' });
    // A name whose DNS answer is loopback.
    await expect(
      safeFetch(`https://images.example.test:${victimPort}/`, { ...base, lookup: async () => ['127.0.0.1'] }),
    ).rejects.toMatchObject({ code: 'reference_url_blocked' });
    // An allowed host that redirects to a private one.
    await expect(safeFetch(`http://127.0.0.2:${redirectorPort}/redirect`, trusted)).rejects.toMatchObject({
      code: 'reference_url_blocked',
    });
    expect(victimConnections - before).toBe(0);
  });

  it('fetches from an allowed host with the size and content-type caps', async () => {
    const ok = await safeFetch(`http://127.0.0.2:${redirectorPort}/image`, trusted);
    expect(ok).toMatchObject({ contentType: 'image/png' });
    expect(ok.bytes.length).toBe(100);
    await expect(safeFetch(`http://127.0.0.2:${redirectorPort}/big`, trusted)).rejects.toMatchObject({
      code: 'reference_fetch_failed',
    });
    await expect(safeFetch(`http://127.0.0.2:${redirectorPort}/html`, trusted)).rejects.toMatchObject({
      code: 'reference_fetch_failed',
    });
    await expect(safeFetch('ftp://127.0.0.2/x', trusted)).rejects.toMatchObject({ code: 'reference_url_blocked' });
  });
});

describe('rehosting external images for a model that cannot fetch URLs', () => {
  it('fetches each image URL safely, keeps it, and sends a gateway link instead; a refused URL names the field', async () => {
    const { startTestGateway } = await import('../support/gateway.js');
    const { rehostExternalImages } = await import('../../shared/assets/rehost.js');
    const gw = await startTestGateway();
    try {
      const ctx = {
        db: gw.services.db,
        storage: gw.services.storage,
        linkSecret: gw.services.linkSecret,
        baseUrl: gw.url,
        ttlMs: 60_000,
        now: Date.now(),
        limits: gw.services.config.imageFetch,
        fetchOptions: { allowHttp: true, trusted: ['127.0.0.2'] },
      };
      const request = {
        model: 'm',
        content: [
          { type: 'text', text: `see http://127.0.0.2:${redirectorPort}/image` },
          { type: 'image_url', image_url: { url: `http://127.0.0.2:${redirectorPort}/image` } },
        ],
      };
      const out = await rehostExternalImages(ctx, 'user-1', request);
      const link = out.content[1]!.image_url!.url;
      expect(link.startsWith(`${gw.url}/v1/files/`)).toBe(true);
      expect(out.content[0]!.text).toBe(request.content[0]!.text); // text is never touched
      const served = await fetch(link);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect((await served.arrayBuffer()).byteLength).toBe(100);
      // Every image field, not only `url`: model-specific fields that pass through, and lists of them;
      // never the client's words, even when they are a URL.
      const image = `http://127.0.0.2:${redirectorPort}/image`;
      const loose = await rehostExternalImages(ctx, 'user-1', {
        prompt: image,
        image,
        extra: { reference_images: [image, image] },
      });
      expect(loose.prompt).toBe(image);
      for (const rehosted of [loose.image, ...loose.extra.reference_images])
        expect(rehosted.startsWith(`${gw.url}/v1/files/`)).toBe(true);
      const before = victimConnections;
      await expect(
        rehostExternalImages(ctx, 'user-1', {
          content: [{ type: 'image_url', image_url: { url: `http://127.0.0.1:${victimPort}/` } }],
        }),
      ).rejects.toMatchObject({
        code: 'reference_url_blocked',
        param: 'content[0].image_url.url',
      });
      expect(victimConnections).toBe(before);
    } finally {
      await gw.close();
    }
  });
});
