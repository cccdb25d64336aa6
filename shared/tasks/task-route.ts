import type { Discount } from '../billing/pricing.js';
import type { CatalogModel, Endpoint } from '../catalog/index.js';
import type { TaskKind } from '../db/schema.js';
import { discountOf } from '../gateway/pipeline.js';
import type { GatewayServices } from '../gateway/services.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { withDefaultModel } from '../routing/default-model.js';
import { planModels, routesFor } from '../routing/plan.js';
import { parseProviderPreferences } from '../routing/provider-preferences.js';
import { checkImageCount, type ImageFetchLimits } from '../assets/fetch-images.js';
import { externalImageUrls, rehostExternalImages } from '../assets/rehost.js';
import { resolveAssetReferences } from '../assets/resolve-references.js';
import { requestHash } from '../idempotency/idempotency-key.js';
import { onceByKey } from '../idempotency/once.js';
import type { IdempotencyScope, StoredResult } from '../idempotency/replay.js';
import { createTask, type CreatedTask } from './create-task.js';

/** What differs between the task kinds when a task is created: validation, pricing, checks. */
export interface TaskRoute<R extends { model: string }> {
  kind: TaskKind;
  endpoint: Endpoint;
  /** Validates the body (400 naming the field). */
  parse(body: unknown): R;
  /** Checks what needs the model and the key, fills in defaults, and prices the call. */
  prepare(
    request: R,
    model: CatalogModel,
    key: ApiKeyContext,
    discount: Discount,
  ): { request: Record<string, unknown>; cost: number };
  /** Checks that read the request's bytes (inline reference images), before anything is reserved. */
  check?(request: R, model: CatalogModel): Promise<void>;
  /** What the gateway fetches of the images it re-hosts for the model (default: the IMAGE_FETCH_* limits). */
  fetchLimits?(model: CatalogModel, limits: ImageFetchLimits): ImageFetchLimits;
}

export interface TaskCallContext {
  requestId: string;
  tags: string[];
  idempotencyKey: string | undefined;
  /** The origin of the links the upstream fetches references from. */
  baseUrl: string;
  /** The caller already looked for this key's stored result (the private protocol does, across call kinds). */
  replayChecked?: boolean;
}

/** A created task, or a replayed one, and the model that answers it (`X-Service-Model`). */
export interface RouteTask {
  created: CreatedTask;
  modelId: string;
}

/**
 * A task from a creating call's body (the task surfaces, and the private protocol's task calls). A
 * known key answers its stored first result before anything that may differ on a retry — routing
 * and account health, the catalog and its prices, the key's group, assets and fetched images — so a
 * replay answers the same during an outage or after a model, an asset or an allowance went away
 * (docs/reference/idempotency.md). One request per key runs the rest; a refusal stores nothing.
 */
export async function createRouteTask<R extends { model: string }>(
  services: GatewayServices,
  key: ApiKeyContext,
  route: TaskRoute<R>,
  bodyValue: Record<string, unknown>,
  call: TaskCallContext,
): Promise<RouteTask> {
  if (!call.idempotencyKey) return planAndCreate(services, key, route, bodyValue, call, undefined);
  const hash = requestHash(bodyValue);
  const scope: IdempotencyScope = {
    userId: key.userId,
    apiKeyId: key.id,
    endpoint: route.endpoint,
    key: call.idempotencyKey,
  };
  return onceByKey(
    services,
    scope,
    hash,
    () => planAndCreate(services, key, route, bodyValue, call, { scope, hash }),
    async (stored) => ({ created: { ...stored, replayed: true }, modelId: storedModel(stored) }),
    { lookedUp: call.replayChecked === true },
  );
}

function storedModel(stored: StoredResult): string {
  return String((stored.body as { model?: unknown }).model ?? '');
}

async function planAndCreate<R extends { model: string }>(
  services: GatewayServices,
  key: ApiKeyContext,
  route: TaskRoute<R>,
  bodyValue: Record<string, unknown>,
  call: TaskCallContext,
  idempotency: { scope: IdempotencyScope; hash: Buffer } | undefined,
): Promise<RouteTask> {
  // `provider` (preferred providers) is the gateway's routing field, not part of the task request.
  const { provider: providerField, ...fields } = withDefaultModel(bodyValue, key);
  const parsed = route.parse(fields);
  // The same plan as every surface: a plain id, auto or a preset picks the model, and the route
  // is the first healthy upstream account by weight (the task is submitted later, by a worker).
  const plan = await planModels(
    services.routing,
    key,
    parsed.model,
    route.endpoint,
    parseProviderPreferences(providerField, services.catalog),
  );
  const model = plan.models[0]!;
  const [upstreamRoute] = await routesFor(services.routing, model, plan.preferences);
  const prepared = route.prepare(parsed, model, key, discountOf(services, key));
  await route.check?.(parsed, model);
  const { cost } = prepared;
  // After pricing (which reads the request as the client wrote it): the upstream gets signed links.
  const links = {
    db: services.db,
    storage: services.storage,
    linkSecret: services.linkSecret,
    baseUrl: call.baseUrl,
    ttlMs: services.config.tasks.deadlineMs,
    now: services.clock.now(),
    limits: route.fetchLimits?.(model, services.config.imageFetch) ?? services.config.imageFetch,
  };
  if (!model.accepts_urls) checkImageCount(externalImageUrls(prepared.request), links.limits);
  const created = await createTask(services, services.jobs, {
    kind: route.kind,
    key,
    model,
    route: upstreamRoute!,
    // Once admitted: external image URLs first (for a model that cannot fetch them), then asset references.
    request: async () =>
      resolveAssetReferences(
        links,
        key,
        model.accepts_urls ? prepared.request : await rehostExternalImages(links, key.userId, prepared.request),
      ),
    requestId: call.requestId,
    tags: call.tags,
    idempotency,
    cost,
  });
  return { created, modelId: model.id };
}
