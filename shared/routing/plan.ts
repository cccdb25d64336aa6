import { groupAllows, type Catalog, type CatalogModel, type Endpoint } from '../catalog/index.js';
import { GatewayError } from '../errors.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { Upstream, UpstreamRegistry } from '../providers/registry.js';
import type { AccountHealth } from './account-health.js';
import { rankAuto } from './auto.js';
import type { LatencyTracker } from './latency.js';
import { parseModelSpec } from './model-spec.js';
import { applyPreferences, mergePreferences, type ProviderPreferences } from './provider-preferences.js';
import type { RoutingCache } from './routing-cache.js';
import { weightedOrder } from './weighted.js';

/** What the plan needs from a gateway process. */
export interface RoutingServices {
  readonly catalog: Catalog;
  readonly upstreams: UpstreamRegistry;
  readonly health: AccountHealth;
  readonly latency: LatencyTracker;
  readonly cache: RoutingCache;
}

/** The models a call tries, in order, each admitted and metered on its own; and how to pick routes. */
export interface RoutingPlan {
  readonly models: readonly CatalogModel[];
  readonly preferences: ProviderPreferences | undefined;
  /** The preset's response-cache TTL (seconds; absent = not set there): wins over the key's. */
  readonly cacheTtlSeconds?: number | null;
}

/** One upstream account a model attempt may be sent to. */
export interface RouteChoice {
  readonly upstream: Upstream;
  readonly upstreamModel: string;
  /** `<provider>/<account>`: the account, as usage records and tasks name it. */
  readonly account: string;
  /** `<provider>/<account>:<upstream model>`: the route's name in the shared health state. */
  readonly healthKey: string;
}

const AUTO_MEMO_MS = 1_000;
const autoMemo = new Map<string, { at: number; catalog: Catalog; models: CatalogModel[] }>();

const notFound = (message: string) => new GatewayError('model_not_found', 404, message, { param: 'model' });

/** A model the key may call for this endpoint. */
function eligible(
  catalog: Catalog,
  key: ApiKeyContext,
  model: CatalogModel | undefined,
  endpoint: Endpoint,
): model is CatalogModel {
  return model !== undefined && model.endpoints.includes(endpoint) && groupAllows(catalog, key.groupId, model.id);
}

/**
 * Step 4 for a model named by its id: it exists, serves this endpoint, and the key's group allows
 * it (written here only: planModels runs it for a plain id, the estimates for theirs).
 */
export function authorizeModel(
  services: { readonly catalog: Catalog },
  key: ApiKeyContext,
  modelId: string,
  endpoint: Endpoint,
): CatalogModel {
  const { catalog } = services;
  const model = catalog.models.get(modelId);
  if (!model || !model.endpoints.includes(endpoint))
    throw notFound(`model '${modelId}' does not exist or does not serve ${endpoint}`);
  if (!groupAllows(catalog, key.groupId, model.id))
    throw new GatewayError('model_not_allowed', 403, `this key's group does not allow model '${model.id}'`, {
      param: 'model',
    });
  return model;
}

/**
 * Resolves the request's `model` into the models to try: a plain id (step 4: authorizeModel), an
 * automatic choice among the models the operator made eligible, or the key account's preset (one
 * of another account answers exactly like an unknown one).
 */
export async function planModels(
  services: RoutingServices,
  key: ApiKeyContext,
  requested: string,
  endpoint: Endpoint,
  request?: ProviderPreferences,
): Promise<RoutingPlan> {
  const spec = parseModelSpec(requested);
  const { catalog } = services;
  if (spec.kind === 'model')
    return { models: [authorizeModel(services, key, spec.id, endpoint)], preferences: request };
  if (spec.kind === 'auto') {
    // The ranking depends only on the group, the endpoint and (for latency) the samples: kept a second.
    const memoKey = `${key.groupId}\0${endpoint}\0${spec.strategy}`;
    const memo = autoMemo.get(memoKey);
    if (memo && performance.now() - memo.at < AUTO_MEMO_MS && memo.catalog === catalog)
      return { models: memo.models, preferences: request };
    const candidates = [...catalog.models.values()].filter((m) => m.auto && eligible(catalog, key, m, endpoint));
    if (candidates.length === 0) throw notFound(`no model is eligible for '${requested}' with this key on ${endpoint}`);
    const ttft = spec.strategy === 'latency' ? await services.latency.averages(candidates.map((m) => m.id)) : undefined;
    const models = rankAuto(candidates, spec.strategy, ttft);
    autoMemo.set(memoKey, { at: performance.now(), catalog, models });
    return { models, preferences: request };
  }
  const preset = await services.cache.preset(key.userId, spec.slug);
  if (!preset) throw notFound(`model '${requested}' does not exist`);
  // A model the key's group does not allow (or the catalog no longer has) is skipped.
  let models = preset.models
    .map((id) => catalog.models.get(id))
    .filter((m): m is CatalogModel => eligible(catalog, key, m, endpoint));
  if (models.length === 0) throw notFound(`no model of '${requested}' serves ${endpoint} for this key`);
  if (preset.strategy === 'cost' || preset.strategy === 'latency') {
    const ttft = preset.strategy === 'latency' ? await services.latency.averages(models.map((m) => m.id)) : undefined;
    models = rankAuto(models, preset.strategy, ttft);
  } else if (preset.strategy === 'weighted') {
    const weights = new Map(preset.models.map((id, i) => [id, preset.weights?.[i] ?? 1]));
    models = weightedOrder(models.map((m) => ({ m, weight: weights.get(m.id) ?? 1 }))).map((w) => w.m);
  }
  const presetPrefs = preset.preferred_providers
    ? {
        ...(preset.preferred_providers.order && { order: preset.preferred_providers.order }),
        ...(preset.preferred_providers.only && { only: preset.preferred_providers.only }),
      }
    : undefined;
  return {
    models,
    preferences: mergePreferences(presetPrefs, request),
    cacheTtlSeconds: preset.cache_ttl_seconds ?? null,
  };
}

export const noAvailableAccount = (model: string) =>
  new GatewayError('upstream_unavailable', 503, `no upstream account is available for model '${model}' right now`, {
    retryAfter: 1,
  });

/**
 * The accounts a model attempt may use, in the order to try them: the model's routes (filtered and
 * ordered by provider preferences), and within each route the provider's healthy accounts by
 * weight, then a rested account whose cooldown is over if this process wins its probe.
 */
export async function routesFor(
  services: RoutingServices,
  model: CatalogModel,
  prefs: ProviderPreferences | undefined,
): Promise<RouteChoice[]> {
  const routes = applyPreferences(
    model.routes.map((r) => ({ provider: r.provider, upstreamModel: r.upstream_model ?? model.id })),
    prefs,
  );
  const candidates = routes.flatMap((r) =>
    services.upstreams.accounts(r.provider).map((upstream) => {
      const account = `${r.provider}/${upstream.account}`;
      return {
        upstream,
        upstreamModel: r.upstreamModel,
        account,
        healthKey: `${account}:${r.upstreamModel}`,
        provider: r.provider,
        weight: upstream.weight,
      };
    }),
  );
  const states = await services.health.states(candidates.map((c) => c.healthKey));
  const choices: RouteChoice[] = [];
  for (const route of routes) {
    const mine = candidates.filter((c) => c.provider === route.provider && c.upstreamModel === route.upstreamModel);
    choices.push(...weightedOrder(mine.filter((c) => states.get(c.healthKey) === 'closed')));
    for (const c of mine)
      if (states.get(c.healthKey) === 'half-open' && (await services.health.tryProbe(c.healthKey))) choices.push(c);
  }
  if (choices.length === 0) throw noAvailableAccount(model.id);
  return choices;
}
