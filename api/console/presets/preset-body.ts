import { z } from 'zod';
import type { Catalog } from '../../../shared/catalog/index.js';
import type { PresetFields } from '../../../shared/db/presets.js';
import type { PresetRow } from '../../../shared/db/routing-schema.js';
import { badRequest } from '../../../shared/errors.js';
import { MAX_CACHE_TTL_SECONDS } from '../../../shared/response-cache/ttl.js';
import { PRESET_SLUG } from '../../../shared/routing/model-spec.js';

const providerList = z.array(z.string().min(1).max(128)).max(20);
const fields = {
  models: z.array(z.string().min(1).max(128)).min(1, 'needs at least one model').max(20, 'at most 20 models'),
  strategy: z.enum(['ordered', 'cost', 'latency', 'weighted']),
  weights: z.array(z.number().int().min(0).max(1_000_000)).nullable(),
  preferred_providers: z.strictObject({ order: providerList.optional(), only: providerList.optional() }).nullable(),
  /** The response cache's TTL for calls through the preset (wins over the key's; the request header wins over it). */
  cache_ttl_seconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(0, 'must not be negative')
    .max(MAX_CACHE_TTL_SECONDS, 'is at most 30 days (2592000 seconds)')
    .nullable(),
};

export const presetCreateSchema = z.strictObject({
  slug: z.string().regex(PRESET_SLUG, 'lower-case letters, digits and -, starting with a letter or digit (at most 64)'),
  models: fields.models,
  strategy: fields.strategy.optional(),
  weights: fields.weights.optional(),
  preferred_providers: fields.preferred_providers.optional(),
  cache_ttl_seconds: fields.cache_ttl_seconds.optional(),
});

export const presetUpdateSchema = z.strictObject({
  models: fields.models.optional(),
  strategy: fields.strategy.optional(),
  weights: fields.weights.optional(),
  preferred_providers: fields.preferred_providers.optional(),
  cache_ttl_seconds: fields.cache_ttl_seconds.optional(),
});

type PresetInput = z.infer<typeof presetUpdateSchema>;

/**
 * Merges the given fields over the current ones and checks the whole: known models without
 * duplicates, weights (one per model) exactly with the weighted strategy, known providers.
 */
export function presetFields(catalog: Catalog, input: PresetInput, current?: PresetRow): PresetFields {
  const merged: PresetFields = {
    models: input.models ?? current?.models ?? [],
    strategy: input.strategy ?? current?.strategy ?? 'ordered',
    weights: input.weights !== undefined ? input.weights : (current?.weights ?? null),
    preferred_providers:
      input.preferred_providers !== undefined ? input.preferred_providers : (current?.preferred_providers ?? null),
    cache_ttl_seconds:
      input.cache_ttl_seconds !== undefined ? input.cache_ttl_seconds : (current?.cache_ttl_seconds ?? null),
  };
  const seen = new Set<string>();
  merged.models.forEach((model, i) => {
    if (seen.has(model))
      throw badRequest(
        `invalid value for 'models[${i}]': model '${model}' appears twice in the preset`,
        `models[${i}]`,
      );
    seen.add(model);
    if (!catalog.models.has(model))
      throw badRequest(`invalid value for 'models[${i}]': unknown model '${model}'`, `models[${i}]`);
  });
  if (merged.strategy === 'weighted') {
    if (!merged.weights || merged.weights.length !== merged.models.length) {
      throw badRequest("invalid value for 'weights': the weighted strategy needs one weight per model", 'weights');
    }
  } else if (merged.weights) {
    throw badRequest("invalid value for 'weights': weights apply only to the weighted strategy", 'weights');
  }
  for (const list of ['order', 'only'] as const) {
    merged.preferred_providers?.[list]?.forEach((provider, i) => {
      if (!catalog.providers.has(provider))
        throw badRequest(
          `invalid value for 'preferred_providers.${list}[${i}]': unknown provider '${provider}'`,
          `preferred_providers.${list}[${i}]`,
        );
    });
  }
  return merged;
}

export function presetView(row: PresetRow) {
  return {
    slug: row.slug,
    model: `@preset/${row.slug}`,
    models: row.models,
    strategy: row.strategy,
    weights: row.weights,
    preferred_providers: row.preferred_providers,
    cache_ttl_seconds: row.cache_ttl_seconds ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
