// A fake upstream provider for tests, benchmarks and demo mode; started in-process.
import type { AddressInfo } from 'node:net';
import { BehaviourStore, type SimBehaviour } from './behaviour.js';
import { createSimServer } from './server.js';
import { StatsTracker, type SimStats } from './stats.js';

export type { SimBehaviour, SimFault } from './behaviour.js';
export type { SimStats } from './stats.js';

export interface UpstreamSimOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  defaults?: SimBehaviour;
  models?: Record<string, SimBehaviour>;
  /** When set, requests must send `Authorization: Bearer <apiKey>`, else 401. */
  apiKey?: string;
}

export interface UpstreamSim {
  /** Base URL without a path, e.g. http://127.0.0.1:4010 (OpenAI clients add /v1). */
  url: string;
  port: number;
  /** Stops listening and drops open connections, hung requests included. */
  close(): Promise<void>;
  setModel(name: string, behaviour: SimBehaviour): void;
  setDefaults(behaviour: SimBehaviour): void;
  stats(): SimStats;
  resetStats(): void;
}

export async function startUpstreamSim(options: UpstreamSimOptions = {}): Promise<UpstreamSim> {
  const host = options.host ?? '127.0.0.1';
  const behaviours = new BehaviourStore(options.defaults, options.models);
  const stats = new StatsTracker();
  const server = createSimServer({ behaviours, stats, apiKey: options.apiKey });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
    setModel: (name, behaviour) => behaviours.setModel(name, behaviour),
    setDefaults: (behaviour) => behaviours.setDefaults(behaviour),
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
  };
}
