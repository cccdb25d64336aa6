import type { Db, Trx } from './index.js';
import type { PreferredProviders, PresetRow, PresetStrategy } from './routing-schema.js';

export interface PresetFields {
  models: string[];
  strategy: PresetStrategy;
  weights: number[] | null;
  preferred_providers: PreferredProviders | null;
  /** Seconds answers through the preset stay in the response cache; null = not set (the key's applies). */
  cache_ttl_seconds?: number | null;
}

/** Scoped to the account: another account's slug is indistinguishable from a missing one. */
export function findPreset(db: Db | Trx, userId: string, slug: string): Promise<PresetRow | undefined> {
  return db
    .selectFrom('routing_presets')
    .selectAll()
    .where('user_id', '=', userId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

export async function listPresets(
  db: Db | Trx,
  userId: string,
  page: number,
  pageSize: number,
): Promise<{ rows: PresetRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('routing_presets')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('slug')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('routing_presets')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Every preset slug of the account (for the model list). */
export function presetSlugs(db: Db | Trx, userId: string): Promise<Array<{ slug: string; created_at: Date }>> {
  return db
    .selectFrom('routing_presets')
    .select(['slug', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('slug')
    .execute();
}

/** Undefined when the slug is taken (unique per account). */
export function insertPreset(
  db: Db | Trx,
  userId: string,
  slug: string,
  fields: PresetFields,
): Promise<PresetRow | undefined> {
  return db
    .insertInto('routing_presets')
    .values({
      user_id: userId,
      slug,
      ...fields,
      preferred_providers: fields.preferred_providers && JSON.stringify(fields.preferred_providers),
    })
    .onConflict((oc) => oc.columns(['user_id', 'slug']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updatePreset(
  db: Db | Trx,
  userId: string,
  slug: string,
  fields: PresetFields,
): Promise<PresetRow | undefined> {
  return db
    .updateTable('routing_presets')
    .set({
      ...fields,
      preferred_providers: fields.preferred_providers && JSON.stringify(fields.preferred_providers),
      updated_at: new Date(),
    })
    .where('user_id', '=', userId)
    .where('slug', '=', slug)
    .returningAll()
    .executeTakeFirst();
}

export async function deletePreset(db: Db | Trx, userId: string, slug: string): Promise<boolean> {
  const result = await db
    .deleteFrom('routing_presets')
    .where('user_id', '=', userId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
