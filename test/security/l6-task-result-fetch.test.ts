// L6: a result link on another origin than the provider's (a CDN link, in the provider's answer) was
// downloaded with plain undici: a provider's answer could point the worker at an internal address
// and have its answer mirrored to the account. Such links go through the safe fetcher now (https,
// public addresses only, pinned, redirects checked, size-capped): a private target sees no connection.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeStream } from '../../shared/assets/safe-fetch.js';
import { testCatalog } from '../support/catalog.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import {
  createVideo,
  doneAfterMirrorRetries,
  readTask,
  startTaskGateway,
  videoBody,
  waitSettled,
  type TaskGateway,
} from '../support/task-gateway.js';

// An internal service on loopback that answers anything, and counts who connects.
let victim: Server;
let victimUrl: string;
let connections = 0;
let tasks: TaskGateway;
let images: TestGateway;

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  victim = createServer((req, res) => {
    req.resume();
    const type = req.url?.endsWith('.png') ? 'image/png' : 'video/mp4';
    res.writeHead(200, { 'content-type': type });
    res.end('internal secret');
  });
  victim.on('connection', () => connections++);
  victimUrl = `http://127.0.0.1:${await listen(victim, '127.0.0.1')}`;
  // The provider's answers carry result links on the victim's origin.
  tasks = await startTaskGateway({ sim: { resultOrigin: victimUrl } });
  images = await startTestGateway({
    sim: { resultOrigin: victimUrl },
    catalog: (simUrl) =>
      testCatalog(simUrl, {
        models: [
          {
            id: 'img-sim',
            endpoints: ['images/generations'],
            routes: [{ provider: 'sim', upstream_model: 'up-image' }],
            pricing: { per_image: { '1024x1024': 40_000 } },
          },
        ],
        groups: [{ id: 'default', models: ['*'] }],
      }),
  });
});
afterAll(async () => {
  await tasks?.close();
  await images?.close();
  victim.closeAllConnections();
  await new Promise((r) => victim.close(r));
});

describe('result links on another origin', () => {
  it('a video task whose result link points at a private address is never fetched: no copy, no connection', async () => {
    const a = await tasks.account({ balance: 1_000_000 });
    const created = await createVideo(tasks, a.key, videoBody('a fox'));
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = created.json.id as string;
    // Every mirror attempt is refused.
    await doneAfterMirrorRetries(tasks, id);
    const row = await waitSettled(tasks, id);
    expect(row.status).toBe('succeeded');
    expect(row.stored_keys).toBeNull();
    const view = (await readTask(tasks, a.key, id)).json;
    expect(view.provider_url).toBe(`${victimUrl}/_sim/files/${row.upstream_id}.mp4`);
    expect(view.stored_url).toBeUndefined();
    expect(connections).toBe(0);
  });

  it('an image answer whose URL points at a private address is refused, and the address sees no connection', async () => {
    const a = await images.account({ balance: 1_000_000 });
    const res = await fetch(`${images.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${a.key}` },
      body: JSON.stringify({ model: 'img-sim', prompt: 'a fox', n: 1, size: '1024x1024' }),
    });
    const body = await res.text();
    expect(res.status, body).toBe(502);
    expect(body).not.toContain('internal secret');
    expect(connections).toBe(0);
  });

  it('the safe fetcher streams a large result within its cap, and fails one past it', async () => {
    const size = 3 * 1024 * 1024;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      // Chunked, no Content-Length: the cap is applied as the bytes arrive.
      for (let sent = 0; sent < size; sent += 64 * 1024) res.write(Buffer.alloc(64 * 1024, 7));
      res.end();
    });
    const port = await listen(server, '127.0.0.2');
    const trusted = { allowHttp: true, trusted: ['127.0.0.2'], timeoutMs: 10_000 };
    try {
      const ok = await safeStream(`http://127.0.0.2:${port}/video.mp4`, { ...trusted, maxBytes: size });
      let received = 0;
      for await (const chunk of ok.body) received += (chunk as Buffer).length;
      expect(received).toBe(size);
      expect(ok.contentType).toBe('video/mp4');
      const over = await safeStream(`http://127.0.0.2:${port}/video.mp4`, { ...trusted, maxBytes: size - 1 });
      await expect(
        (async () => {
          for await (const _ of over.body); // eslint-disable-line @typescript-eslint/no-unused-vars
        })(),
      ).rejects.toMatchObject({ code: 'reference_fetch_failed' });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
