import { z } from 'zod';
import type { TemplateWithParts } from '../../../shared/db/prompt-templates.js';
import { templateDefaults, templateVariables } from '../../../shared/routing/templates.js';
import { UUID_PATTERN as UUID } from '../../../shared/ids.js';

const version = z.strictObject({
  label: z.string().min(1).max(40),
  text: z.string().min(1).max(20_000),
  weight: z.number().int().min(0).max(1_000_000).default(1),
});
const versions = z
  .array(version)
  .min(1, 'needs at least one version')
  .max(10, 'at most 10 versions')
  .refine((vs) => new Set(vs.map((v) => v.label)).size === vs.length, 'version labels must differ')
  .refine((vs) => vs.some((v) => v.weight > 0), 'at least one version needs a weight above 0');
const keyIds = z.array(z.string().regex(UUID, 'must be a key id')).max(1000);

export const templateCreateSchema = z.strictObject({
  name: z.string().min(1).max(100),
  versions,
  key_ids: keyIds.optional(),
});
export const templateUpdateSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  versions: versions.optional(),
  key_ids: keyIds.optional(),
});

export function templateView({ template, versions, keyIds }: TemplateWithParts) {
  return {
    id: template.id,
    name: template.name,
    versions: versions.map((v) => ({
      id: v.id,
      label: v.label,
      text: v.text,
      weight: v.weight,
      variables: templateVariables(v.text),
      defaults: templateDefaults(v.text),
    })),
    key_ids: keyIds,
    created_at: template.created_at.toISOString(),
    updated_at: template.updated_at.toISOString(),
  };
}
