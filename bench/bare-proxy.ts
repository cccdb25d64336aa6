// The ceiling: the least a Node proxy can do per call. node:http in front, one undici keep-alive
// Pool behind (the same pool settings as the gateway's upstream registry), request bytes forwarded
// up and response bytes relayed back as they arrive: no parsing, no auth, no accounting. It drives
// undici through its dispatch handler, as the gateway does: `pool.request()` with a Readable body
// and an async iterator costs more per call than some of what the gateway does on top.
// Usage: node dist-bench/bench/bare-proxy.js --upstream http://127.0.0.1:PORT [--port P] [--memory]; prints {"url"}.
// `--memory`: the least an answer cache can do (bench/cache.ts): a body seen before is answered from
// a Map by its bytes, no key, no lookup over the network, no accounting; a new one goes upstream once.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Pool, type Dispatcher } from 'undici';

const { values } = parseArgs({
  options: {
    upstream: { type: 'string' },
    port: { type: 'string' },
    connections: { type: 'string' },
    memory: { type: 'boolean' },
  },
  strict: true,
});
if (!values.upstream) throw new Error('--upstream is required');

const pool = new Pool(new URL(values.upstream).origin, {
  connections: Number(values.connections ?? 256),
  keepAliveTimeout: 30_000,
});

const ROUTE = '/v1/chat/completions';
// What a real proxy puts on the upstream call: the provider's key, not the client's.
const UPSTREAM_AUTHORIZATION = 'Bearer bench-upstream-secret';
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
]);

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/** Relays one upstream response to the client as it arrives, pausing the upstream while the client is slow. */
class Relay implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;

  constructor(private readonly res: ServerResponse) {
    res.on('drain', () => this.controller?.resume());
    res.on('close', () => {
      if (!res.writableEnded) this.controller?.abort(new Error('client gone'));
    });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.res.writeHead(statusCode, responseHeaders(headers));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.res.write(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, _err: Error): void {
    if (!this.res.headersSent)
      this.res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"upstream failed"}');
    else this.res.destroy();
  }
}

// The request body is read whole and sent as one Buffer (a streamed request body costs undici about
// twice the CPU for a small JSON document); the response is relayed chunk by chunk as it arrives.
function forward(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const headers: Record<string, string> = { authorization: UPSTREAM_AUTHORIZATION };
    const type = req.headers['content-type'];
    if (type) headers['content-type'] = type;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    pool.dispatch({ method: 'POST', path: ROUTE, headers, body }, new Relay(res));
  });
}

const memory = new Map<string, Buffer>();

/** `--memory`: the answer kept by the request's bytes; the first of each goes upstream, whole. */
function fromMemory(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const key = body.toString('latin1');
    const kept = memory.get(key);
    if (kept) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': kept.length }).end(kept);
      return;
    }
    const headers = { authorization: UPSTREAM_AUTHORIZATION, 'content-type': 'application/json' };
    pool.request({ method: 'POST', path: ROUTE, headers, body }).then(
      async (answer) => {
        const bytes = Buffer.from(await answer.body.arrayBuffer());
        if (answer.statusCode === 200) memory.set(key, bytes);
        res.writeHead(answer.statusCode, { 'content-type': 'application/json' }).end(bytes);
      },
      () => res.writeHead(502).end(),
    );
  });
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== ROUTE) {
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    return;
  }
  if (values.memory) fromMemory(req, res);
  else forward(req, res);
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(Number(values.port ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close();
    pool.close().finally(() => process.exit(0));
  });
}
