import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { createRequestListener } from '../../api/app.js';
import { buildCatalog } from '../../shared/catalog/index.js';
import { buildServices } from '../../shared/gateway/build-services.js';
import { createLogger } from '../../shared/log.js';
import type { TestGateway } from './gateway.js';

/**
 * Another API process of the same deployment (the same Postgres, Redis prefix and config) started
 * with another catalog: what a client reaches after an operator changed the catalog and restarted.
 */
export async function startSecondApi(
  gw: TestGateway,
  catalog: (simUrl: string) => unknown,
): Promise<{ url: string; close(): Promise<void> }> {
  const services = await buildServices(
    gw.services.config,
    buildCatalog(catalog(gw.sim.url)),
    createLogger('silent'),
    gw.services.clock,
  );
  const server = createServer(createRequestListener(services)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.close();
    },
  };
}
