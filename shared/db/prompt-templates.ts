import type { Db, Trx } from './index.js';
import type { PromptTemplateRow, PromptTemplateVersionRow } from './routing-schema.js';

export interface VersionInput {
  label: string;
  text: string;
  weight: number;
}

export interface TemplateWithParts {
  template: PromptTemplateRow;
  versions: PromptTemplateVersionRow[];
  keyIds: string[];
}

async function withParts(db: Db | Trx, template: PromptTemplateRow): Promise<TemplateWithParts> {
  const [versions, bindings] = await Promise.all([
    db
      .selectFrom('prompt_template_versions')
      .selectAll()
      .where('template_id', '=', template.id)
      .orderBy('label')
      .execute(),
    db
      .selectFrom('prompt_template_bindings')
      .select('api_key_id')
      .where('template_id', '=', template.id)
      .orderBy('api_key_id')
      .execute(),
  ]);
  return { template, versions, keyIds: bindings.map((b) => b.api_key_id) };
}

/** Scoped to the account: another account's template is indistinguishable from a missing one. */
export async function findTemplate(db: Db | Trx, userId: string, id: string): Promise<TemplateWithParts | undefined> {
  const template = await db
    .selectFrom('prompt_templates')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return template && withParts(db, template);
}

export async function listTemplates(
  db: Db | Trx,
  userId: string,
  page: number,
  pageSize: number,
): Promise<{ rows: TemplateWithParts[]; total: number }> {
  const [templates, count] = await Promise.all([
    db
      .selectFrom('prompt_templates')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('name')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('prompt_templates')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: await Promise.all(templates.map((t) => withParts(db, t))), total: Number(count.n) };
}

/** The ids among `keyIds` that are not keys of this account. */
export async function foreignKeys(db: Db | Trx, userId: string, keyIds: readonly string[]): Promise<string[]> {
  if (keyIds.length === 0) return [];
  const own = await db
    .selectFrom('api_keys')
    .select('id')
    .where('user_id', '=', userId)
    .where('id', 'in', keyIds)
    .execute();
  const ownIds = new Set(own.map((k) => k.id));
  return keyIds.filter((id) => !ownIds.has(id));
}

/** Replaces the versions and, when given, the bound keys (a key moves from any template it ran). */
export async function writeTemplateParts(
  trx: Trx,
  templateId: string,
  versions: VersionInput[] | undefined,
  keyIds: string[] | undefined,
): Promise<void> {
  if (versions) {
    await trx.deleteFrom('prompt_template_versions').where('template_id', '=', templateId).execute();
    await trx
      .insertInto('prompt_template_versions')
      .values(versions.map((v) => ({ template_id: templateId, ...v })))
      .execute();
  }
  if (keyIds) {
    await trx.deleteFrom('prompt_template_bindings').where('template_id', '=', templateId).execute();
    if (keyIds.length) {
      await trx
        .insertInto('prompt_template_bindings')
        .values(keyIds.map((api_key_id) => ({ api_key_id, template_id: templateId })))
        .onConflict((oc) => oc.column('api_key_id').doUpdateSet({ template_id: templateId }))
        .execute();
    }
  }
}

/** The versions of the template bound to a key (empty when none is), for the generation path. */
export function boundVersions(db: Db | Trx, keyId: string): Promise<PromptTemplateVersionRow[]> {
  return db
    .selectFrom('prompt_template_bindings as b')
    .innerJoin('prompt_template_versions as v', 'v.template_id', 'b.template_id')
    .selectAll('v')
    .where('b.api_key_id', '=', keyId)
    .orderBy('v.label')
    .execute();
}
