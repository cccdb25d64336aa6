import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP relay in front of a real service (Postgres) that a test can cut: `cut()` drops
 * every open connection and resets new ones at once, as a database that went away does; `restore()`
 * relays again.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): void;
  restore(): void;
  /**
   * Stops relaying what the target sends, every connection kept open (a replication link that
   * fell behind); `release()` relays again.
   */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let cut = false;
  let held = false;
  const server = createServer((client) => {
    if (cut) return void client.resetAndDestroy();
    const upstream = createConnection({ host: targetHost, port: targetPort });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    if (!held) upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
    },
    restore() {
      cut = false;
    },
    hold() {
      held = true;
      for (const { client, upstream } of pairs) {
        upstream.unpipe(client);
        upstream.pause();
      }
    },
    release() {
      held = false;
      for (const { client, upstream } of pairs) upstream.pipe(client);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
