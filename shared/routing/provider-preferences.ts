import { z } from 'zod';
import type { Catalog } from '../catalog/index.js';
import { badRequest } from '../errors.js';
import { fieldPath, parseOrThrow } from '../validation.js';

/** Which providers serve a call first, or only (OpenRouter's `provider` object, per request or per preset). */
export interface ProviderPreferences {
  readonly order?: readonly string[];
  readonly only?: readonly string[];
  /** false: only the providers in `order` are tried. Default true. */
  readonly allowFallbacks?: boolean;
}

const providerList = z.array(z.string().min(1).max(128)).max(20);
export const providerPreferencesSchema = z.strictObject({
  order: providerList.optional(),
  only: providerList.optional(),
  allow_fallbacks: z.boolean().optional(),
});

/** The body's `provider` field, checked against the catalog (an unknown provider is a 400 naming it). */
export function parseProviderPreferences(
  value: unknown,
  catalog: Catalog,
  param = 'provider',
): ProviderPreferences | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = parseOrThrow(z.object({ [param]: providerPreferencesSchema }), { [param]: value })[param]!;
  for (const list of ['order', 'only'] as const) {
    parsed[list]?.forEach((provider, i) => {
      if (!catalog.providers.has(provider)) {
        const field = fieldPath([param, list, i]);
        throw badRequest(`invalid value for '${field}': unknown provider '${provider}'`, field);
      }
    });
  }
  return {
    ...(parsed.order && { order: parsed.order }),
    ...(parsed.only && { only: parsed.only }),
    ...(parsed.allow_fallbacks !== undefined && { allowFallbacks: parsed.allow_fallbacks }),
  };
}

/** The request's preferences over the preset's, field by field. */
export function mergePreferences(
  preset: ProviderPreferences | undefined,
  request: ProviderPreferences | undefined,
): ProviderPreferences | undefined {
  if (!preset) return request;
  if (!request) return preset;
  return { ...preset, ...request };
}

/** Routes reordered and filtered by provider: `only` keeps the listed; `order` goes first, in order. */
export function applyPreferences<R extends { provider: string }>(
  routes: readonly R[],
  prefs: ProviderPreferences | undefined,
): R[] {
  if (!prefs) return [...routes];
  let kept = prefs.only ? routes.filter((r) => prefs.only!.includes(r.provider)) : [...routes];
  if (prefs.order) {
    const rank = (r: R) => {
      const i = prefs.order!.indexOf(r.provider);
      return i === -1 ? prefs.order!.length : i;
    };
    kept = kept
      .map((r, i) => ({ r, i }))
      .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
      .map((x) => x.r);
    if (prefs.allowFallbacks === false) kept = kept.filter((r) => prefs.order!.includes(r.provider));
  }
  return kept;
}
