import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy to a real server that the test takes down (every connection dropped, new ones refused) and up again. */
export interface TcpProxy {
  url: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  let isUp = true;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (!isUp) {
      client.destroy();
      return;
    }
    const target = createConnection({ host, port });
    for (const s of [client, target]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        target.destroy();
      });
    }
    client.pipe(target).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    down() {
      isUp = false;
      for (const s of sockets) s.destroy();
    },
    up() {
      isUp = true;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
