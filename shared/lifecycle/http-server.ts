import type { Server } from 'node:http';

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Listens on `port`, or on the next of the following `tries` ports when it is taken (several
 * workers on one host); resolves with the port in use, or undefined when all were taken. Port 0
 * picks any free port. A worker never dies for its metrics endpoint.
 */
export async function listenOnFreePort(
  server: Server,
  port: number,
  host: string,
  tries = 20,
): Promise<number | undefined> {
  for (let candidate = port; candidate <= Math.min(port + tries, 65535); candidate++) {
    try {
      await listen(server, candidate, host);
      return (server.address() as { port: number }).port;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw err;
    }
  }
  return undefined;
}

/** Stops accepting, lets in-flight requests finish (idle keep-alive sockets are closed at once). */
export function closeGracefully(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
