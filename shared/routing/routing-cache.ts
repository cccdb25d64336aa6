import type { Db } from '../db/index.js';
import { findPreset } from '../db/presets.js';
import { boundVersions } from '../db/prompt-templates.js';
import type { PresetRow, PromptTemplateVersionRow } from '../db/routing-schema.js';

/**
 * Presets and bound template versions as the generation path reads them: from Postgres at most
 * every `ttlMs` per preset or key (a change made in the console reaches every process within it;
 * the process that made it drops its copy at once).
 */
export class RoutingCache {
  private presets = new Map<string, { at: number; row: PresetRow | undefined }>();
  private templates = new Map<string, { at: number; versions: PromptTemplateVersionRow[] }>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 2_000,
    /** Entries kept per map before it starts afresh (a process that saw many keys stays small). */
    private readonly maxEntries = 50_000,
  ) {}

  private remember<V>(map: Map<string, V>, id: string, value: V): void {
    if (map.size >= this.maxEntries) map.clear();
    map.set(id, value);
  }

  async preset(userId: string, slug: string): Promise<PresetRow | undefined> {
    const id = `${userId}\0${slug}`;
    const hit = this.presets.get(id);
    if (hit && performance.now() - hit.at < this.ttlMs) return hit.row;
    const row = await findPreset(this.db, userId, slug);
    this.remember(this.presets, id, { at: performance.now(), row });
    return row;
  }

  async templateVersions(keyId: string): Promise<PromptTemplateVersionRow[]> {
    const hit = this.templates.get(keyId);
    if (hit && performance.now() - hit.at < this.ttlMs) return hit.versions;
    const versions = await boundVersions(this.db, keyId);
    this.remember(this.templates, keyId, { at: performance.now(), versions });
    return versions;
  }

  /** Forget everything (a console change in this process). */
  clear(): void {
    this.presets.clear();
    this.templates.clear();
  }
}
