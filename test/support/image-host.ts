// An external image host for the tests of what the gateway fetches (re-hosting for models that
// cannot fetch URLs themselves), and the task catalog entry of such a model.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pngOfSize } from './images.js';
import { IMAGE_PER_IMAGE, IMAGE_UPSTREAM, taskCatalog } from './task-gateway.js';

export interface ImageHost {
  url: string;
  /** Images served so far (refused requests are not counted). */
  readonly served: number;
  /** While true every request answers 404, as a link not yet published does. */
  refusing: boolean;
  /** What it serves from now on (default a 200-byte PNG). */
  serve(bytes: Buffer, contentType?: string): void;
  close(): Promise<void>;
}

/**
 * The certificate of an https image host on 127.0.0.1 (self-signed, valid until 2126, made for these
 * tests only): a gateway process started with NODE_EXTRA_CA_CERTS=IMAGE_HOST_CA trusts it, as it
 * trusts a public host's.
 */
const TLS_DIR = path.join(import.meta.dirname, 'tls');
export const IMAGE_HOST_CA = path.join(TLS_DIR, 'image-host.crt');

/** A host on 127.0.0.1, over http, or over https (`tls`) with the certificate of IMAGE_HOST_CA. */
export async function startImageHost(options: { tls?: boolean } = {}): Promise<ImageHost> {
  let body = pngOfSize(200);
  let type = 'image/png';
  let served = 0;
  const host = {
    refusing: false,
    get served() {
      return served;
    },
    serve(bytes: Buffer, contentType = 'image/png') {
      body = bytes;
      type = contentType;
    },
  };
  const answer = (_req: IncomingMessage, res: ServerResponse) => {
    if (host.refusing) return void res.writeHead(404).end();
    served++;
    res.writeHead(200, { 'content-type': type }).end(body);
  };
  const server: Server = options.tls
    ? createTlsServer(
        { cert: readFileSync(IMAGE_HOST_CA), key: readFileSync(path.join(TLS_DIR, 'image-host.key')) },
        answer,
      )
    : createServer(answer);
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(host, {
    url,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

/** An image-task model that cannot fetch URLs itself: the gateway fetches and re-hosts them. */
export const FETCHING_MODEL = 'img-task-fetching';

type CatalogDoc = { models: Array<{ id: string; [field: string]: unknown }>; [field: string]: unknown };

/** The task catalog plus FETCHING_MODEL; the image host must be a trusted address (IMAGE_FETCH_TRUSTED_ADDRESSES). */
export function taskCatalogWithFetching(simUrl: string): CatalogDoc {
  const base = taskCatalog(simUrl) as CatalogDoc;
  const fetching = {
    id: FETCHING_MODEL,
    endpoints: ['images/tasks'],
    routes: [{ provider: 'tasks-sim', upstream_model: IMAGE_UPSTREAM }],
    pricing: { per_image: IMAGE_PER_IMAGE },
    accepts_urls: false,
  };
  return { ...base, models: [...base.models, fetching] };
}
