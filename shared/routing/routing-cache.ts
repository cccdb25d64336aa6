import { RefreshingCache } from '../cache/refreshing-cache.js';
import type { Db } from '../db/index.js';
import { findPreset } from '../db/presets.js';
import { boundVersions } from '../db/prompt-templates.js';
import type { PresetRow, PromptTemplateVersionRow } from '../db/routing-schema.js';

/**
 * Presets and bound template versions as the generation path reads them: from Postgres at most
 * every `ttlMs` per preset or key, one query at a time however many calls ask, the old value served
 * while it is refreshed and while Postgres is away (shared/cache/refreshing-cache.ts). A change made
 * in the console reaches every process within about `ttlMs`; the process that made it drops its copy
 * at once.
 */
export class RoutingCache {
  private readonly presets: RefreshingCache<string, PresetRow | null>;
  private readonly templates: RefreshingCache<string, PromptTemplateVersionRow[]>;

  constructor(
    db: Db,
    ttlMs = 2_000,
    /** Entries kept per kind before the oldest go (a process that saw many keys stays small). */
    maxEntries = 50_000,
  ) {
    const options = { freshMs: ttlMs, maxEntries };
    this.presets = RefreshingCache.of(async (id: string) => {
      const [userId, slug] = id.split('\0') as [string, string];
      return (await findPreset(db, userId, slug)) ?? null;
    }, options);
    this.templates = RefreshingCache.of((keyId: string) => boundVersions(db, keyId), options);
  }

  async preset(userId: string, slug: string): Promise<PresetRow | undefined> {
    return (await this.presets.get(`${userId}\0${slug}`)) ?? undefined;
  }

  templateVersions(keyId: string): Promise<PromptTemplateVersionRow[]> {
    return this.templates.get(keyId);
  }

  /** Forget everything (a console change in this process). */
  clear(): void {
    this.presets.clear();
    this.templates.clear();
  }
}
