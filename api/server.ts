import { createServer, type Server } from 'node:http';
import type { GatewayServices } from '../shared/gateway/services.js';
import { closeGracefully, listen } from '../shared/lifecycle/http-server.js';
import { createRequestListener } from './app.js';
import { TimedResponse } from './http/observe.js';

export interface ApiServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startApiServer(services: GatewayServices): Promise<ApiServer> {
  const { host, port } = services.config.http;
  // TimedResponse: the access log's time to first byte.
  const server = createServer({ ServerResponse: TimedResponse }, createRequestListener(services));
  // Longer than common load balancer idle timeouts, so the proxy closes first (no reset races).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await listen(server, port, host);
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound}`,
    close: () => closeGracefully(server),
  };
}
