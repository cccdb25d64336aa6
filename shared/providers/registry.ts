import { Pool } from 'undici';
import type { Catalog, CatalogProvider } from '../catalog/index.js';

/** One upstream account of a provider: what a call is sent with. */
export interface Upstream {
  /** The provider, with `api_key` set to this account's key. */
  readonly provider: CatalogProvider;
  /** The account's id (`default` for a provider given as one `api_key`). */
  readonly account: string;
  readonly weight: number;
  /** Path prefix of base_url (e.g. `/v1`), prepended to each protocol path. */
  readonly basePath: string;
  readonly pool: Pool;
}

export interface UpstreamOptions {
  connections: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

/** One keep-alive connection pool per provider, shared by its accounts and by every call to it. */
export class UpstreamRegistry {
  private readonly upstreams = new Map<string, Upstream[]>();

  constructor(catalog: Catalog, options: UpstreamOptions) {
    for (const provider of catalog.providers.values()) {
      const url = new URL(provider.base_url);
      const pool = new Pool(url.origin, {
        connections: options.connections,
        headersTimeout: options.headersTimeoutMs,
        bodyTimeout: options.bodyTimeoutMs,
        keepAliveTimeout: 30_000,
      });
      const basePath = url.pathname.replace(/\/+$/, '');
      const accounts = provider.accounts ?? [{ id: 'default', api_key: provider.api_key, weight: 1 }];
      this.upstreams.set(
        provider.id,
        accounts.map((a) => ({
          provider: { ...provider, api_key: a.api_key },
          account: a.id,
          weight: a.weight,
          basePath,
          pool,
        })),
      );
    }
  }

  /** The provider's first account (task providers that need no spreading). */
  get(providerId: string): Upstream {
    return this.accounts(providerId)[0]!;
  }

  /** Every account of the provider, in catalog order. */
  accounts(providerId: string): readonly Upstream[] {
    const upstreams = this.upstreams.get(providerId);
    if (!upstreams) throw new Error(`no upstream ${providerId}`);
    return upstreams;
  }

  async close(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((u) => u[0]!.pool.close()));
  }
}
