import type { Catalog, CatalogModel } from '../catalog/index.js';
import { GatewayError } from '../errors.js';
import type { RoutingPlan } from '../routing/plan.js';
import type { ProviderPreferences } from '../routing/provider-preferences.js';

/**
 * What a `private-chat` job carries besides the call's id: step 4's plan as the API made it before
 * storing the call (the worker does not run step 4 again), and the body's size. The body itself is
 * stored once, on the call (the worker reads it as it claims the call).
 */
export interface PrivateChatJob {
  callId: string;
  /** The plan's models in order, by id; absent when the maintenance sweep re-drives a call (the worker plans it then). */
  models?: string[] | undefined;
  preferences?: ProviderPreferences | undefined;
  /** Bytes of the stored body: the prompt's estimate when an upstream reports no usage. */
  bytes?: number | undefined;
}

export function plannedJob(callId: string, plan: RoutingPlan, bytes: number): PrivateChatJob {
  const job: PrivateChatJob = { callId, models: plan.models.map((m) => m.id), bytes };
  if (plan.preferences) job.preferences = plan.preferences;
  return job;
}

/** The job's plan: its models as the catalog has them now (one removed since answers like an unknown model). */
export function planOfJob(
  catalog: Catalog,
  models: readonly string[],
  preferences: ProviderPreferences | undefined,
): RoutingPlan {
  const found = models.map((id) => catalog.models.get(id)).filter((m): m is CatalogModel => m !== undefined);
  if (found.length === 0)
    throw new GatewayError('model_not_found', 404, `model '${models[0]}' no longer exists`, { param: 'model' });
  return { models: found, preferences };
}
