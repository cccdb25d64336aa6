import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Forward half of the real answer in one chunk, then drop the connection. */
export const CUT = 0;

/**
 * A loopback proxy in front of a real gateway for client-library tests: answers planned faults
 * first (503s, a redirect, a cut stream) and forwards everything else, counting what reached it.
 */
export interface FaultProxy {
  url: string;
  plan: Map<string, number[]>;
  hits(method: string, path: string): number;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const plan = new Map<string, number[]>();
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const key = `${req.method} ${(req.url ?? '').split('?')[0]}`;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    // A plan key ending in '*' matches every path it begins (ids made by the gateway).
    const prefixed = [...plan.keys()].find((k) => k.endsWith('*') && key.startsWith(k.slice(0, -1)));
    const planned = plan.get(key) ?? (prefixed ? plan.get(prefixed)! : []);
    const next = planned.shift();
    if (next !== undefined && next !== CUT) {
      req.resume();
      const body = JSON.stringify({
        error: { message: 'planned fault', type: 'server_error', param: null, code: 'service_unavailable' },
      });
      res.writeHead(next, {
        'content-type': 'application/json',
        'x-request-id': `fault-${hits.get(key)}`,
        ...(next >= 300 && next < 400 && { location: 'http://127.0.0.1:9/elsewhere' }),
      });
      res.end(body);
      return;
    }
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        if (next === CUT) {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const whole = Buffer.concat(parts);
            res.writeHead(answer.statusCode ?? 502, {
              'content-type': answer.headers['content-type'] ?? 'text/event-stream',
              'x-request-id': String(answer.headers['x-request-id'] ?? ''),
            });
            res.write(whole.subarray(0, whole.length >> 1), () => res.socket?.destroy());
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plan,
    hits: (method, path) => hits.get(`${method} ${path}`) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
