import { Pool } from 'undici';
import type { Catalog, CatalogProvider } from '../catalog/index.js';

export interface Upstream {
  readonly provider: CatalogProvider;
  /** Path prefix of base_url (e.g. `/v1`), prepended to each protocol path. */
  readonly basePath: string;
  readonly pool: Pool;
}

export interface UpstreamOptions {
  connections: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

/** One keep-alive connection pool per provider, shared by every call to it. */
export class UpstreamRegistry {
  private readonly upstreams = new Map<string, Upstream>();

  constructor(catalog: Catalog, options: UpstreamOptions) {
    for (const provider of catalog.providers.values()) {
      const url = new URL(provider.base_url);
      const pool = new Pool(url.origin, {
        connections: options.connections,
        headersTimeout: options.headersTimeoutMs,
        bodyTimeout: options.bodyTimeoutMs,
        keepAliveTimeout: 30_000,
      });
      this.upstreams.set(provider.id, { provider, basePath: url.pathname.replace(/\/+$/, ''), pool });
    }
  }

  get(providerId: string): Upstream {
    const upstream = this.upstreams.get(providerId);
    if (!upstream) throw new Error(`no upstream ${providerId}`);
    return upstream;
  }

  async close(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((u) => u.pool.close()));
  }
}
