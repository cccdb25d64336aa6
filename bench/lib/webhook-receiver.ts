// The receiver of bench:webhooks: node:http on loopback that verifies each request's Standard
// Webhooks signature with the `standardwebhooks` package and records when it arrived.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Arrival {
  taskId: string;
  webhookId: string;
  /** Wall clock (ms, sub-ms precision) when the request's body had arrived. */
  at: number;
}

/** node:http on loopback: verifies each request's signature, records it, answers 204 (401 when the signature is wrong). */
export async function startReceiver(secret: () => string) {
  const arrivals: Arrival[] = [];
  let refused = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = new Webhook(secret()).verify(body, req.headers as Record<string, string>) as {
          data: { id: string };
        };
        arrivals.push({ taskId: event.data.id, webhookId: String(req.headers['webhook-id']), at });
        res.writeHead(204).end();
      } catch {
        refused++;
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
